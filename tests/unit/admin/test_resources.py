"""authgate_cli.admin.resources: what `authgate resources` accepts, before any stack is looked up."""

from __future__ import annotations

import pytest

from authgate_cli.admin import resources
from authgate_cli.admin.arguments import InvalidInput


@pytest.mark.parametrize("uri", ["https://api.example.com/mcp", "https://api.example.com", "http://127.0.0.1:8080/mcp",
                                 "http://localhost:3001/", "http://[::1]:9/x"])
def test_accepted_resource_uris(uri: str) -> None:
    assert resources.resource_uri(uri) == uri


@pytest.mark.parametrize(("uri", "message"), [
    ("http://api.example.com/mcp", "must be https"),
    ("https://user:pw@api.example.com/", "no user information"),
    ("https://api.example.com/#x", "without a fragment"),
    ("/mcp", "absolute URI"),
    ("https://api.example.com/" + "a" * 2000, "absolute URI"),
])
def test_refused_resource_uris(uri: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        resources.resource_uri(uri)


def test_loopback_http_only_on_the_local_stack() -> None:
    with pytest.raises(InvalidInput, match="local stack only"):
        resources.resource_uri("http://127.0.0.1:8080/mcp", local=False)


def test_scopes_and_tenants() -> None:
    assert resources.scopes("mcp:read mcp:write mcp:read") == ("mcp:read", "mcp:write")
    for bad in ("", "a  b", 'a"b'):
        with pytest.raises(InvalidInput):
            resources.scopes(bad)
    assert resources.tenants("demo, acme,demo") == ("demo", "acme")
    assert resources.tenants("") == ()
