"""admin.clients and admin.users actions against moto (the target plumbing is tested in test_target)."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from authgate.clients.model import client_secret_matches
from tests.unit.admin.clients_arguments import ns
from tests.unit.admin.users_arguments import user_args


@pytest.fixture
def demo(aws: None) -> None:
    """The tenant every client and user here belongs to (admin commands refuse unknown tenants)."""
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "demo", "name": "Demo", "currencies": ["usd"], "forbidden_scopes": [],
           "approved_clients": []}])


def test_create_prints_secret_once_and_stores_only_its_hash(demo: None) -> None:
    from authgate.clients.model import hash_secret
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client

    out = io.StringIO()
    assert create_client(ns(client_id="cli-client"), out) == 0
    shown = json.loads(out.getvalue())
    assert shown["client_id"] == "cli-client" and len(shown["client_secret"]) >= 43
    stored = ClientStore().get("cli-client")
    assert stored is not None and stored.secret_hash == hash_secret(shown["client_secret"])
    listing = io.StringIO()
    from authgate_cli.admin.client_actions import list_clients

    assert list_clients(ns(), listing) == 0
    assert shown["client_secret"] not in listing.getvalue() and stored.secret_hash not in listing.getvalue()
    assert [c["client_id"] for c in json.loads(listing.getvalue())] == ["cli-client"]


def test_create_existing_or_bad_scope_fails(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.client_actions import create_client

    assert create_client(ns(client_id="dup"), io.StringIO()) == 0
    assert create_client(ns(client_id="dup"), io.StringIO()) == 1
    assert create_client(ns(client_id="x", scope=["admin"]), io.StringIO()) == 2
    assert "unknown scope 'admin'" in capsys.readouterr().err


def test_the_password_grant_is_registered_only_where_the_stack_serves_it(
        demo: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client

    monkeypatch.delenv("AUTHGATE_PASSWORD_GRANT", raising=False)
    caches.reset()
    assert create_client(ns(client_id="pw", grant=["password"]), io.StringIO()) == 2
    assert capsys.readouterr().err == (
        "authgate clients: the password grant is off on this stack (its token endpoint answers "
        "unsupported_grant_type): deploy with PasswordGrantEnabled=true, or start `authgate serve` with "
        "AUTHGATE_PASSWORD_GRANT=true, before registering a client for it\n")
    assert ClientStore().get("pw") is None

    monkeypatch.setenv("AUTHGATE_PASSWORD_GRANT", "true")
    caches.reset()
    assert create_client(ns(client_id="pw", grant=["password"]), io.StringIO()) == 0
    stored = ClientStore().get("pw")
    assert stored is not None and stored.grant_types == ("password",)


def test_rotate_secret_invalidates_old_secret(demo: None) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, rotate_secret

    out = io.StringIO()
    create_client(ns(client_id="rot"), out)
    old = json.loads(out.getvalue())["client_secret"]
    out = io.StringIO()
    assert rotate_secret(ns(client_id="rot"), out) == 0
    new = json.loads(out.getvalue())["client_secret"]
    client = ClientStore().get("rot")
    assert client is not None and client_secret_matches(client, new) and not client_secret_matches(client, old)


def test_rotate_secret_of_nobody_or_of_a_public_client_is_exit_2(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.client_actions import create_client, rotate_secret

    assert rotate_secret(ns(client_id="missing"), io.StringIO()) == 2
    assert capsys.readouterr().err == "authgate clients: no client 'missing' (see `authgate clients list`)\n"
    assert create_client(ns(client_id="spa", type="public", grant=["authorization_code"],
                            redirect_uri=["https://spa.example/cb"]), io.StringIO()) == 0
    assert rotate_secret(ns(client_id="spa"), io.StringIO()) == 2
    assert capsys.readouterr().err == ("authgate clients: client 'spa' is public: it has no secret to rotate "
                                       "(RFC 6749 2.1)\n")


@pytest.mark.slow
def test_users_create_reads_password_from_stdin(demo: None) -> None:
    from authgate.stores.users import UserStore
    from authgate_cli.admin.user_actions import create_user

    args = user_args()
    assert create_user(args, io.StringIO(), io.StringIO("bob-password-1\n")) == 0
    assert UserStore().verify("demo", "bob", "bob-password-1").ok
    assert create_user(args, io.StringIO(), io.StringIO("bob-password-2\n")) == 1
    assert create_user(args, io.StringIO(), io.StringIO("short\n")) == 2


def test_create_for_a_tenant_that_does_not_exist_is_refused(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client
    from authgate_cli.admin.users import act

    assert create_client(ns(client_id="orphan", tenant="nope"), io.StringIO()) == 2
    assert capsys.readouterr().err == "authgate clients: tenant 'nope' does not exist here (see `authgate tenants list`)\n"
    assert ClientStore().get("orphan") is None
    assert act(user_args(tenant="nope"), io.StringIO()) == 2
    assert capsys.readouterr().err == "authgate users: tenant 'nope' does not exist here (see `authgate tenants list`)\n"


def test_a_client_may_be_registered_with_a_registered_resources_scopes(demo: None,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.resources.model import Resource
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore
    from authgate_cli.admin.client_actions import create_client

    assert create_client(ns(client_id="mcp-agent", scope=["mcp:read"]), io.StringIO()) == 2
    assert ("unknown scope 'mcp:read'; known: charges:read charges:write charges:refund openid profile email "
            "offline_access") in capsys.readouterr().err
    ResourceStore().create(Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write")))
    assert create_client(ns(client_id="mcp-agent", scope=["mcp:read"]), io.StringIO()) == 0
    stored = ClientStore().get("mcp-agent")
    assert stored is not None and stored.scopes == ("mcp:read",)


def cached_document(client_id: str) -> None:
    """The record the resolver writes for a fetched Client ID Metadata Document (no tenant, no secret)."""
    from authgate.clients.model import DOCUMENT_SOURCE, Client
    from authgate.stores.clients import ClientStore

    ClientStore().save(Client(client_id=client_id, tenant_id="", environment="local", client_type="public",
                              secret_hash=None, redirect_uris=("http://127.0.0.1:9/doc",),
                              grant_types=("authorization_code",), scopes=(), source=DOCUMENT_SOURCE,
                              refresh_at=2_000_000_000, expires_at=2_100_000_000))


def test_delete_removes_a_cached_metadata_document(demo: None) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import delete_client

    url = "https://app.example/client.json"
    cached_document(url)
    out = io.StringIO()
    assert delete_client(argparse.Namespace(client_id=url, json=False), out) == 0
    assert out.getvalue() == (f"client_id: {url} deleted (a cached Client ID Metadata Document: the next request "
                              "naming it fetches it again, unless a client is created under this id)\n")
    assert ClientStore().get(url, any_environment=True) is None


def test_an_administrator_pre_registers_a_url_over_its_cached_document(demo: None) -> None:
    """Draft 7.2: `clients create --client-id https://...` replaces the cache; the record is the
    administrator's from then on, and a fetched document is never written over it."""
    from authgate.clients.errors import ClientExists
    from authgate.clients.model import DOCUMENT_SOURCE
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client

    url = "https://app.example/client.json"
    cached_document(url)
    out = io.StringIO()
    assert create_client(ns(client_id=url, type="public", grant=["authorization_code"],
                            redirect_uri=["https://app.example/cb"]), out) == 0
    record = ClientStore().get(url)
    assert record is not None
    assert (record.source, record.tenant_id, record.redirect_uris) == ("", "demo", ("https://app.example/cb",))
    with pytest.raises(ClientExists):
        ClientStore().save(record._replace(source=DOCUMENT_SOURCE, tenant_id=""))  # the resolver's write
    assert create_client(ns(client_id=url), io.StringIO()) == 1  # an administrator's record is not replaced


def test_delete_an_administrators_client_and_its_browser_origin(demo: None) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, delete_client

    assert create_client(ns(client_id="spa", type="public", grant=["authorization_code"],
                            redirect_uri=["https://spa.example/cb"]), io.StringIO()) == 0
    assert ClientStore().origin_allowed("https://spa.example")
    out = io.StringIO()
    assert delete_client(argparse.Namespace(client_id="spa", json=True), out) == 0
    assert json.loads(out.getvalue()) == {"client_id": "spa", "deleted": True, "source": "administrator"}
    assert ClientStore().get("spa") is None and not ClientStore().origin_allowed("https://spa.example")


def test_delete_refuses_an_unknown_client_and_a_resources_introspection_client(
        demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.client_actions import delete_client
    from authgate_cli.admin.resource_actions import create_resource

    assert delete_client(argparse.Namespace(client_id="nobody", json=False), io.StringIO()) == 2
    assert capsys.readouterr().err == "authgate clients: no client 'nobody' (see `authgate clients list`)\n"
    out = io.StringIO()
    assert create_resource(argparse.Namespace(resource="https://mcp.example/mcp", scopes="mcp:read", tenants=None,
                                              json=True, stack_name=None), out) == 0
    introspector = json.loads(out.getvalue())["introspection_client_id"]
    assert delete_client(argparse.Namespace(client_id=introspector, json=False), io.StringIO()) == 2
    assert capsys.readouterr().err == (f"authgate clients: {introspector!r} is the introspection client of "
                                       "https://mcp.example/mcp; it goes with the resource (authgate resources "
                                       "delete https://mcp.example/mcp)\n")


def test_show_prints_one_client_without_its_secret(demo: None, clock: object, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, show_client

    assert create_client(ns(client_id="reports", name="Reports"), io.StringIO()) == 0
    out = io.StringIO()
    assert show_client(argparse.Namespace(client_id="reports", json=True), out) == 0
    stored = ClientStore().get("reports")
    assert stored is not None and json.loads(out.getvalue()) == stored.public_view()
    assert "secret_hash" not in out.getvalue() and str(stored.secret_hash) not in out.getvalue()
    out = io.StringIO()
    assert show_client(argparse.Namespace(client_id="reports", json=False), out) == 0
    # The clock fixture's START, 1_750_000_000, is 2025-06-15T15:06:40Z.
    # One line per field of the public view, aligned; times in ISO 8601, nothing as "-".
    assert out.getvalue() == "".join(f"{(name + ':').ljust(38)} {value}\n" for name, value in (
        ("client_id", "reports"),
        ("tenant_id", "demo"),
        ("environment", "local"),
        ("client_type", "confidential"),
        ("redirect_uris", "-"),
        ("grant_types", "client_credentials"),
        ("scopes", "charges:read"),
        ("error_format", "problem"),
        ("requires_admin_approval", "no"),
        ("name", "Reports"),
        ("created_at", "2025-06-15T15:06:40Z"),
        ("jwks", "-"),
        ("token_endpoint_auth_method", "client_secret_basic"),
        ("require_pushed_authorization_requests", "no"),
        ("profile", "-"),
        ("dpop_bound_access_tokens", "no"),
        ("source", "-"),
        ("refresh_at", "-"),
        ("expires_at", "-"),
        ("registration_pool", "-"),
        ("resource_scopes", "-"),
        ("post_logout_redirect_uris", "-"),
        ("backchannel_logout_uri", "-"),
        ("backchannel_logout_session_required", "no"),
        ("id_token_signed_response_alg", "RS256"),
        ("backchannel_token_delivery_mode", "-"),
    ))
    assert show_client(argparse.Namespace(client_id="nobody", json=False), io.StringIO()) == 2
    assert capsys.readouterr().err == "authgate clients: no client 'nobody' (see `authgate clients list`)\n"


def test_update_renames_a_client_and_keeps_the_rest(demo: None) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, update_client

    assert create_client(ns(client_id="reports", name="Reports"), io.StringIO()) == 0
    before = ClientStore().get("reports")
    out = io.StringIO()
    assert update_client(argparse.Namespace(client_id="reports", name="Monthly reports", json=True), out) == 0
    after = ClientStore().get("reports")
    assert before is not None and after == before._replace(name="Monthly reports")
    assert json.loads(out.getvalue())["name"] == "Monthly reports"
