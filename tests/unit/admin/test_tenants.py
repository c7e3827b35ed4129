"""`authgate tenants create | list | show` against moto; bad input is one stderr line and exit 2."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from authgate_cli.main import main


def ns(tenant_id: str = "globex", **kwargs: object) -> argparse.Namespace:
    base: dict[str, object] = {"tenant_id": tenant_id, "name": None, "currency": ["usd"], "forbid_scope": [],
                               "approve_client": [], "json": True, "tenants_command": "create"}
    base.update(kwargs)
    return argparse.Namespace(**base)


def test_create_then_show_and_list(aws: None) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant, list_tenants, show_tenant

    out = io.StringIO()
    assert create_tenant(ns(name="Globex Corp.", currency=["USD", "eur", "usd"], forbid_scope=["charges:refund"],
                            approve_client=["globex-web"], client_metadata_host=[".example.com", "tools.example"],
                            registered_clients=True, registered_clients_cap=5), out) == 0
    expected = {"tenant_id": "globex", "name": "Globex Corp.", "currencies": ["usd", "eur"],
                "forbidden_scopes": ["charges:refund"], "approved_clients": ["globex-web"],
                "client_metadata_hosts": [".example.com", "tools.example"],
                "registered_clients": True, "registered_clients_cap": 5}
    assert json.loads(out.getvalue()) == expected
    stored = TenantStore().get("globex")
    assert stored is not None and stored.currencies == ("usd", "eur") and stored.forbids("charges:refund")

    shown = io.StringIO()
    assert show_tenant(ns(tenants_command="show"), shown) == 0
    assert json.loads(shown.getvalue()) == expected

    assert create_tenant(ns("initech", currency=["gbp"]), io.StringIO()) == 0
    listing = io.StringIO()
    assert list_tenants(ns(json=False), listing) == 0
    assert listing.getvalue().splitlines() == [
        "TENANT_ID  NAME          CURRENCIES  FORBIDDEN SCOPES  APPROVED CLIENTS",
        "globex     Globex Corp.  usd,eur     charges:refund    globex-web",
        "initech    initech       gbp         -                 -",
    ]


def test_create_never_overwrites(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant

    assert create_tenant(ns(currency=["usd"]), io.StringIO()) == 0
    assert create_tenant(ns(currency=["eur"]), io.StringIO()) == 1
    assert capsys.readouterr().err == "authgate tenants: tenant 'globex' already exists\n"
    stored = TenantStore().get("globex")
    assert stored is not None and stored.currencies == ("usd",)


@pytest.mark.parametrize(("argv", "message"), [
    (["create", "bad#id", "--currency", "usd"], "invalid tenant id 'bad#id'"),
    (["create", "-lead", "--currency", "usd"], None),  # argparse: not an id at all
    (["create", "ok", "--currency", "usd", "--name", "evil\x1b[31mred"], "control characters are not allowed"),
    (["create", "ok", "--currency", "usd", "--name", "line\nbreak"], "control characters are not allowed"),
    (["create", "ok", "--currency", "doubloon"], "unknown currency 'doubloon'"),
    (["create", "ok"], "give at least one --currency"),
    (["create", "ok", "--currency", "usd", "--forbid-scope", "a b"], "--forbid-scope 'a b' is not one scope token"),
    (["create", "ok", "--currency", "usd", "--approve-client", "a b"], "invalid client id 'a b'"),
    (["create", "ok", "--currency", "usd", "--client-metadata-host", "http://x"], ("--client-metadata-host "
     "'http://x': give a host (tools.example), a domain (.example.com) or *")),
    (["create", "ok", "--currency", "usd", "--registered-clients-cap", "0"],
     "--registered-clients-cap must be between 1 and 100000, got 0"),
    (["create", "x" * 65, "--currency", "usd"], "invalid tenant id"),
    (["show", "bad\tid"], "invalid tenant id"),
])
def test_bad_input_is_one_clear_line_and_exit_2(argv: list[str], message: str | None,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # No stack is running and none is needed: input is refused before a stack is looked for.
    code = _exit_code(["tenants", *argv])
    err = capsys.readouterr().err
    assert code == 2
    if message is not None:
        assert err.count("\n") == 1 and err.startswith("authgate tenants: ") and message in err, err
    assert "Traceback" not in err


def test_show_of_an_unknown_tenant_is_exit_2(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.tenants import show_tenant

    assert show_tenant(ns("nobody", tenants_command="show")) == 2
    assert capsys.readouterr().err == "authgate tenants: unknown tenant 'nobody' (see `authgate tenants list`)\n"


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        return int(exc.code or 0)


def test_a_forbidden_scope_must_be_known_on_the_stack(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The charges API's scopes, or those of a registered resource (authgate resources create)."""
    from authgate.resources.model import Resource
    from authgate.stores.resources import ResourceStore
    from authgate_cli.admin.tenants import create_tenant

    assert create_tenant(ns(forbid_scope=["mcp:write"]), io.StringIO()) == 2
    assert capsys.readouterr().err == ("authgate tenants: unknown scope 'mcp:write'; known: charges:read "
                                       "charges:write charges:refund\n")
    ResourceStore().create(Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write")))
    out = io.StringIO()
    assert create_tenant(ns(forbid_scope=["mcp:write"]), out) == 0
    assert json.loads(out.getvalue())["forbidden_scopes"] == ["mcp:write"]
