"""authgate_cli.admin.resource_input: what `authgate resources` accepts, before any stack is looked up."""

from __future__ import annotations

import argparse

import pytest

from authgate_cli.admin import resource_input
from authgate_cli.admin.arguments import InvalidInput


@pytest.mark.parametrize("uri", ["https://api.example.com/mcp", "https://api.example.com", "http://127.0.0.1:8080/mcp",
                                 "http://localhost:3001/", "http://[::1]:9/x"])
def test_accepted_resource_uris(uri: str) -> None:
    assert resource_input.resource_uri(uri) == uri


@pytest.mark.parametrize(("uri", "message"), [
    ("http://api.example.com/mcp", "must be https"),
    ("https://user:pw@api.example.com/", "no user information"),
    ("https://api.example.com/#x", "without a fragment"),
    ("/mcp", "absolute URI"),
    ("https://api.example.com/" + "a" * 2000, "absolute URI"),
])
def test_refused_resource_uris(uri: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        resource_input.resource_uri(uri)


def test_loopback_http_only_on_the_local_stack() -> None:
    with pytest.raises(InvalidInput, match="local stack only"):
        resource_input.resource_uri("http://127.0.0.1:8080/mcp", local=False)


def test_scopes_and_tenants() -> None:
    assert resource_input.scopes("mcp:read mcp:write mcp:read") == ("mcp:read", "mcp:write")
    for bad in ("", "a  b", 'a"b'):
        with pytest.raises(InvalidInput):
            resource_input.scopes(bad)
    assert resource_input.tenants("demo, acme,demo") == ("demo", "acme")
    assert resource_input.tenants("") == ()


def test_names_and_descriptions() -> None:
    from authgate.resources.model import Resource

    mcp = Resource("https://api.example.com/mcp", ("mcp:read", "mcp:write"), scope_descriptions=(("mcp:write", "x"),))
    args = argparse.Namespace(name="Files", description="The files of your team.",
                              scope_description=["mcp:read=Read your files", "mcp:write=Change your files"])
    files = resource_input.described(mcp, args)
    assert (files.name, files.description, files.scope_descriptions) == (
        "Files", "The files of your team.", (("mcp:read", "Read your files"), ("mcp:write", "Change your files")))
    # "" clears a name or description and SCOPE= drops a scope's text; other texts stay.
    cleared = resource_input.described(files, argparse.Namespace(name="", description=None, scope_description=["mcp:read="]))
    assert (cleared.name, cleared.description, cleared.scope_descriptions) == (
        "", "The files of your team.", (("mcp:write", "Change your files"),))
    # A scope the resource no longer has loses its text.
    assert resource_input.described(files._replace(scopes=("mcp:read",)), argparse.Namespace()).scope_descriptions == (
        ("mcp:read", "Read your files"),)


@pytest.mark.parametrize(("args", "message"), [
    ({"scope_description": ["mcp:admin=Rule all"]},
     "--scope-description 'mcp:admin=Rule all' must be SCOPE=TEXT for one of the resource's scopes (mcp:read)"),
    ({"scope_description": ["Read your files"]}, "must be SCOPE=TEXT"),
    ({"name": "Files\x1b[31m"}, "--name 'Files\\x1b[31m' contains the control character U+001B"),
    ({"description": "x" * 501}, "--description is longer than 500 characters"),
    ({"scope_description": ["mcp:read=" + "x" * 201]}, "--scope-description mcp:read is longer than 200 characters"),
])
def test_bad_names_and_descriptions(args: dict[str, object], message: str) -> None:
    from authgate.resources.model import Resource

    with pytest.raises(InvalidInput) as refused:
        resource_input.described(Resource("https://api.example.com/mcp", ("mcp:read",)), argparse.Namespace(**args))
    assert message in str(refused.value)
