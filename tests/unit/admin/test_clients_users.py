"""admin.clients and admin.users actions against moto (the target plumbing is tested in test_target)."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from tests.unit.admin.clients_arguments import ns


@pytest.fixture
def demo(aws: None) -> None:
    """The tenant every client and user here belongs to (admin commands refuse unknown tenants)."""
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "demo", "name": "Demo", "currencies": ["usd"], "forbidden_scopes": [],
           "approved_clients": []}])


def test_create_prints_secret_once_and_stores_only_its_hash(demo: None) -> None:
    from authgate.clients.model import hash_secret
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.clients import create_client

    out = io.StringIO()
    assert create_client(ns(client_id="cli-client"), out) == 0
    shown = json.loads(out.getvalue())
    assert shown["client_id"] == "cli-client" and len(shown["client_secret"]) >= 43
    stored = ClientStore().get("cli-client")
    assert stored is not None and stored.secret_hash == hash_secret(shown["client_secret"])
    listing = io.StringIO()
    from authgate_cli.admin.clients import list_clients

    assert list_clients(ns(), listing) == 0
    assert shown["client_secret"] not in listing.getvalue() and stored.secret_hash not in listing.getvalue()
    assert [c["client_id"] for c in json.loads(listing.getvalue())] == ["cli-client"]


def test_create_existing_or_bad_scope_fails(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.clients import create_client

    assert create_client(ns(client_id="dup"), io.StringIO()) == 0
    assert create_client(ns(client_id="dup"), io.StringIO()) == 1
    assert create_client(ns(client_id="x", scope=["admin"]), io.StringIO()) == 2
    assert "unknown scope 'admin'" in capsys.readouterr().err


def test_rotate_secret_invalidates_old_secret(demo: None) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.clients import create_client, rotate_secret

    out = io.StringIO()
    create_client(ns(client_id="rot"), out)
    old = json.loads(out.getvalue())["client_secret"]
    out = io.StringIO()
    assert rotate_secret(ns(client_id="rot"), out) == 0
    new = json.loads(out.getvalue())["client_secret"]
    client = ClientStore().get("rot")
    assert client is not None and client.verify_secret(new) and not client.verify_secret(old)
    assert rotate_secret(ns(client_id="missing"), io.StringIO()) == 1


@pytest.mark.slow
def test_users_create_reads_password_from_stdin(demo: None) -> None:
    from authgate.stores.users import UserStore
    from authgate_cli.admin.users import create_user

    args = argparse.Namespace(tenant="demo", username="bob", password_stdin=True, overwrite=False)
    assert create_user(args, io.StringIO(), io.StringIO("bob-password-1\n")) == 0
    assert UserStore().verify("demo", "bob", "bob-password-1").ok
    assert create_user(args, io.StringIO(), io.StringIO("bob-password-2\n")) == 1
    assert create_user(args, io.StringIO(), io.StringIO("short\n")) == 2


def test_create_for_a_tenant_that_does_not_exist_is_refused(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.clients import create_client
    from authgate_cli.admin.users import create_user

    assert create_client(ns(client_id="orphan", tenant="nope"), io.StringIO()) == 2
    assert capsys.readouterr().err == ("authgate clients: tenant 'nope' does not exist here; create it first "
                                       "(authgate tenants create)\n")
    assert ClientStore().get("orphan") is None
    args = argparse.Namespace(tenant="nope", username="bob", password_stdin=True, overwrite=False)
    assert create_user(args, io.StringIO(), io.StringIO("bob-password-1\n")) == 2
    assert "tenant 'nope' does not exist here" in capsys.readouterr().err


def test_a_client_may_be_registered_with_a_registered_resources_scopes(demo: None,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.resources.model import Resource
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore
    from authgate_cli.admin.clients import create_client

    assert create_client(ns(client_id="mcp-agent", scope=["mcp:read"]), io.StringIO()) == 2
    assert "unknown scope 'mcp:read'; known: charges:read charges:write charges:refund" in capsys.readouterr().err
    ResourceStore().create(Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write")))
    assert create_client(ns(client_id="mcp-agent", scope=["mcp:read"]), io.StringIO()) == 0
    stored = ClientStore().get("mcp-agent")
    assert stored is not None and stored.scopes == ("mcp:read",)
