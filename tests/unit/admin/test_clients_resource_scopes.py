"""`authgate clients create|update --resource-scopes "RESOURCE=SCOPES"`: what a client is granted of a registered
resource (RFC 6749 4.4, RFC 9700 2.3), against moto; bad input is one stderr line and exit 2."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from authgate_cli.main import main
from tests.demo import ISSUER
from tests.unit.admin.clients_arguments import ns

MCP = "https://mcp.example.com/mcp"


@pytest.fixture
def registered(aws: None) -> None:
    from authgate.resources.model import Resource
    from authgate.stores.resources import ResourceStore
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "demo", "name": "Demo", "currencies": ["usd"]}])
    ResourceStore().create(Resource(MCP, ("mcp:read", "mcp:write")))


def update(client_id: str, *grants: str, as_json: bool = True) -> argparse.Namespace:
    return ns(client_id=client_id, clients_command="update", jwks=None, auth_method=None, profile=None,
              require_par=None, resource_scopes=list(grants), json=as_json)


def test_create_then_update_and_withdraw_a_grant(registered: None) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, update_client

    out = io.StringIO()
    assert create_client(ns(client_id="svc", resource_scopes=[f"{MCP}=mcp:read"]), out) == 0
    assert json.loads(out.getvalue())["resource_scopes"] == {MCP: ["mcp:read"]}
    stored = ClientStore().get("svc")
    assert stored is not None and stored.granted_scopes(MCP) == ("mcp:read",) and stored.scopes == ("charges:read",)

    out = io.StringIO()
    assert update_client(update("svc", f"{MCP}=mcp:read mcp:write"), out) == 0
    assert json.loads(out.getvalue())["resource_scopes"] == {MCP: ["mcp:read", "mcp:write"]}
    text = io.StringIO()
    assert update_client(update("svc", as_json=False), text) == 0  # nothing asked: the grant stays
    assert text.getvalue() == ("client_id: svc updated (auth client_secret_basic, profile none, 0 keys, PAR optional, "
                               f"resource grants {MCP}=mcp:read mcp:write)\n")
    text = io.StringIO()
    assert update_client(update("svc", f"{MCP}=", as_json=False), text) == 0
    assert text.getvalue().endswith(", resource grants none)\n")
    stored = ClientStore().get("svc")
    assert stored is not None and stored.resource_scopes == () and stored.scopes == ("charges:read",)


@pytest.mark.parametrize(("grant", "message"), [
    (f"{MCP}=mcp:admin", f"--resource-scopes: 'mcp:admin' is not a scope of {MCP}; its scopes: mcp:read mcp:write"),
    ("https://nope.example/api=mcp:read",
     "--resource-scopes: no resource 'https://nope.example/api' is registered here (see `authgate resources list`)"),
    (f"{ISSUER}/charges=charges:read", f"{ISSUER}/charges is the charges API: its scopes are granted with --scope"),
])
def test_a_grant_must_name_a_registered_resource_and_its_scopes(registered: None, grant: str, message: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, update_client

    assert create_client(ns(client_id="svc", resource_scopes=[grant]), io.StringIO()) == 2
    assert capsys.readouterr().err == f"authgate clients: {message}\n"
    assert create_client(ns(client_id="svc"), io.StringIO()) == 0
    assert update_client(update("svc", grant), io.StringIO()) == 2
    assert capsys.readouterr().err == f"authgate clients: {message}\n"
    stored = ClientStore().get("svc")
    assert stored is not None and stored.resource_scopes == ()


@pytest.mark.parametrize(("argv", "message"), [
    (["update", "svc", "--resource-scopes", "mcp:read"], "--resource-scopes 'mcp:read' must be RESOURCE=SCOPES"),
    (["update", "svc", "--resource-scopes", f"{MCP}=a  b"],
     f"--resource-scopes '{MCP}=a  b': the scopes must be scope tokens separated by single spaces (RFC 6749 3.3)"),
    (["create", "--tenant", "demo", "--grant", "client_credentials", "--resource-scopes", "not a uri=x"],
     "--resource-scopes 'not a uri=x' must be RESOURCE=SCOPES"),
])
def test_malformed_grants_are_refused_before_any_stack(argv: list[str], message: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clients", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"authgate clients: {message}"), err
