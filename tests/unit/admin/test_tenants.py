"""`authgate tenants create | update | list | show` against moto; bad input is one stderr line and exit 2."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from authgate_cli.main import main


def ns(tenant_id: str = "globex", **kwargs: object) -> argparse.Namespace:
    """The arguments `authgate tenants` parses: every setting absent (None) unless given."""
    from authgate_cli.admin.tenant_settings import SETTINGS

    base: dict[str, object] = {s.field: None for s in SETTINGS}
    base.update({"tenant_id": tenant_id, "currencies": ["usd"], "json": True, "tenants_command": "create"})
    base.update(kwargs)
    return argparse.Namespace(**base)


def test_create_then_show_and_list(aws: None) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant, list_tenants, show_tenant

    out = io.StringIO()
    assert create_tenant(ns(name="Globex Corp.", currencies=["USD", "eur", "usd"], forbidden_scopes=["charges:refund"],
                            approved_clients=["globex-web"], client_metadata_hosts=[".example.com", "tools.example"],
                            registered_clients=True, registered_clients_cap="5",
                            login_domains=["Globex.example", "globex.example"]), out) == 0
    expected = {"tenant_id": "globex", "name": "Globex Corp.", "currencies": ["usd", "eur"],
                "forbidden_scopes": ["charges:refund"], "approved_clients": ["globex-web"],
                "client_metadata_hosts": [".example.com", "tools.example"],
                "registered_clients": True, "registered_clients_cap": 5, "login_domains": ["globex.example"],
                "sca_threshold": None, "sca_max_age": 300, "require_mfa": False, "approval_webhook": None}
    assert json.loads(out.getvalue()) == expected
    stored = TenantStore().get("globex")
    assert stored is not None and stored.currencies == ("usd", "eur") and stored.forbids("charges:refund")

    shown = io.StringIO()
    assert show_tenant(ns(tenants_command="show"), shown) == 0
    assert json.loads(shown.getvalue()) == expected
    text = io.StringIO()
    assert show_tenant(ns(tenants_command="show", json=False), text) == 0
    assert text.getvalue().splitlines() == [
        "tenant_id:              globex",
        "name:                   Globex Corp.",
        "currencies:             usd eur",
        "forbidden_scopes:       charges:refund",
        "approved_clients:       globex-web",
        "client_metadata_hosts:  .example.com tools.example",
        "registered_clients:     yes",
        "registered_clients_cap: 5",
        "login_domains:          globex.example",
        "sca_threshold:          -",
        "sca_max_age:            300",
        "require_mfa:            no",
        "approval_webhook:       -",
    ]

    assert create_tenant(ns("initech", currencies=["gbp"]), io.StringIO()) == 0
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

    assert create_tenant(ns(currencies=["usd"]), io.StringIO()) == 0
    assert create_tenant(ns(currencies=["eur"]), io.StringIO()) == 1
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
    assert capsys.readouterr().err == "authgate tenants: tenant 'nobody' does not exist here (see `authgate tenants list`)\n"


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

    assert create_tenant(ns(forbidden_scopes=["mcp:write"]), io.StringIO()) == 2
    assert capsys.readouterr().err == ("authgate tenants: unknown scope 'mcp:write'; known: charges:read "
                                       "charges:write charges:refund openid profile email offline_access\n")
    ResourceStore().create(Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write")))
    out = io.StringIO()
    assert create_tenant(ns(forbidden_scopes=["mcp:write"]), out) == 0
    assert json.loads(out.getvalue())["forbidden_scopes"] == ["mcp:write"]


def test_update_changes_the_settings_given_and_keeps_the_others(aws: None) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant, update_tenant

    assert create_tenant(ns(name="Globex", currencies=["usd", "eur"], forbidden_scopes=["charges:refund"],
                            approved_clients=["globex-web"], client_metadata_hosts=["*"], registered_clients=True),
                         io.StringIO()) == 0
    out = io.StringIO()
    assert update_tenant(ns(tenants_command="update", currencies=None, client_metadata_hosts=["tools.example"],
                            registered_clients=False, registered_clients_cap="7", name="Globex Corp."), out) == 0
    expected = {"tenant_id": "globex", "name": "Globex Corp.", "currencies": ["usd", "eur"],
                "forbidden_scopes": ["charges:refund"], "approved_clients": ["globex-web"],
                "client_metadata_hosts": ["tools.example"], "registered_clients": False,
                "registered_clients_cap": 7, "login_domains": [], "sca_threshold": None, "sca_max_age": 300,
                "require_mfa": False, "approval_webhook": None}
    assert json.loads(out.getvalue()) == expected
    stored = TenantStore().get("globex")
    assert stored is not None and not stored.registered_clients and stored.client_metadata_hosts == ("tools.example",)
    # --no-FLAG empties a list; a list flag replaces the whole list.
    text = io.StringIO()
    assert update_tenant(ns(tenants_command="update", json=False, currencies=["gbp"], forbidden_scopes=[],
                            approved_clients=[]), text) == 0
    assert text.getvalue() == "tenant globex updated (gbp)\n"
    stored = TenantStore().get("globex")
    assert stored is not None and (stored.currencies, stored.forbidden_scopes, stored.approved_clients,
                                   stored.registered_clients_cap) == (("gbp",), frozenset(), frozenset(), 7)


def test_update_sets_and_clears_the_strong_authentication_threshold(aws: None) -> None:
    """--sca-threshold AMOUNT [--sca-max-age SECONDS] (RFC 9470 step-up for charges); --no-sca-threshold turns it off."""
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant

    assert create_tenant(ns(), io.StringIO()) == 0
    out = io.StringIO()
    assert _run_update(["globex", "--sca-threshold", "10000"], out) == 0
    stored = TenantStore().get("globex")
    assert stored is not None and (stored.sca_threshold, stored.sca_max_age) == (10000, 300)
    assert (stored.needs_strong_authentication(9999), stored.needs_strong_authentication(10000)) == (False, True)
    assert _run_update(["globex", "--sca-max-age", "60"], io.StringIO()) == 0
    stored = TenantStore().get("globex")
    assert stored is not None and (stored.sca_threshold, stored.sca_max_age) == (10000, 60)
    shown = io.StringIO()
    assert _run_update(["globex", "--no-sca-threshold", "--json"], shown) == 0
    view = json.loads(shown.getvalue())
    assert (view["sca_threshold"], view["sca_max_age"]) == (None, 60)
    stored = TenantStore().get("globex")
    assert stored is not None and not stored.needs_strong_authentication(99_999_999)


def test_update_requires_mfa_of_every_sign_in(aws: None) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant

    assert create_tenant(ns(), io.StringIO()) == 0
    assert _run_update(["globex", "--require-mfa"], io.StringIO()) == 0
    stored = TenantStore().get("globex")
    assert stored is not None and stored.require_mfa
    assert _run_update(["globex", "--no-require-mfa"], io.StringIO()) == 0
    stored = TenantStore().get("globex")
    assert stored is not None and not stored.require_mfa


def _run_update(argv: list[str], out: io.StringIO) -> int:
    from authgate_cli.admin.tenants import update_tenant
    from authgate_cli.main import build_parser

    full = ["tenants", "update", *argv]
    return update_tenant(build_parser(full).parse_args(full), out)


def test_update_of_an_unknown_tenant_or_to_a_bad_value_changes_nothing(aws: None,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant, update_tenant

    assert update_tenant(ns("nobody", tenants_command="update", currencies=None, name="x")) == 2
    assert capsys.readouterr().err == "authgate tenants: tenant 'nobody' does not exist here (see `authgate tenants list`)\n"
    assert create_tenant(ns(), io.StringIO()) == 0
    before = TenantStore().get("globex")
    for change, message in (({"currencies": []}, "give at least one --currency"),
                            ({"forbidden_scopes": ["mcp:write"]}, "unknown scope 'mcp:write'")):
        assert update_tenant(ns(tenants_command="update", **{"currencies": None, **change})) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err
    assert TenantStore().get("globex") == before


@pytest.mark.parametrize(("argv", "message"), [
    (["update", "globex"], "update needs at least one setting to change"),
    (["update", "bad#id", "--name", "x"], "invalid tenant id 'bad#id'"),
    (["update", "globex", "--currency", "doubloon"], "unknown currency 'doubloon'"),
    (["update", "globex", "--registered-clients-cap", "lots"],
     "--registered-clients-cap must be between 1 and 100000, got lots"),
    (["update", "globex", "--client-metadata-host", "http://x"], "--client-metadata-host 'http://x'"),
    (["update", "globex", "--sca-threshold", "0"],
     "--sca-threshold must be an integer from 1 to 99999999 (minor units), got '0'"),
    (["update", "globex", "--sca-threshold", "100.00"],
     "--sca-threshold must be an integer from 1 to 99999999 (minor units), got '100.00'"),
    (["update", "globex", "--sca-max-age", "86401"],
     "--sca-max-age must be an integer from 1 to 86400 seconds, got '86401'"),
    (["update", "globex", "--name", "a\x07b"], "control characters are not allowed"),
])
def test_bad_update_input_is_one_line_before_any_stack(argv: list[str], message: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(["tenants", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("authgate tenants: ") and message in err, err


def test_every_setting_has_a_flag_on_create_and_update_and_a_place_in_the_views() -> None:
    """One table (authgate_cli.admin.tenant_settings.SETTINGS) for every tenant field but the id."""
    from authgate.tenants.model import FIELDS, Tenant
    from authgate_cli.admin.tenant_settings import SETTINGS, view

    assert [s.field for s in SETTINGS] == [f.name for f in FIELDS][1:] == list(Tenant._fields)[1:]
    assert list(view(Tenant("t"))) == list(Tenant._fields)


def test_a_login_domain_belongs_to_one_tenant(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant, list_tenants, update_tenant

    assert create_tenant(ns(login_domains=["globex.example"]), io.StringIO()) == 0
    assert TenantStore().login_domain_owner("GLOBEX.example") == "globex"
    assert create_tenant(ns("initech", login_domains=["globex.example"]), io.StringIO()) == 2
    assert capsys.readouterr().err == ("authgate tenants: the login domain 'globex.example' already belongs to "
                                       "tenant 'globex'\n")
    assert TenantStore().get("initech") is None
    # Moved: released by one tenant, then claimed by the other; the index items are no tenants.
    assert update_tenant(ns(tenants_command="update", currencies=None, login_domains=[]), io.StringIO()) == 0
    assert TenantStore().login_domain_owner("globex.example") == ""
    assert create_tenant(ns("initech", login_domains=["globex.example"]), io.StringIO()) == 0
    assert TenantStore().login_domain_owner("globex.example") == "initech"
    listing = io.StringIO()
    assert list_tenants(ns(), listing) == 0
    assert [t["tenant_id"] for t in json.loads(listing.getvalue())] == ["globex", "initech"]
    assert update_tenant(ns(tenants_command="update", currencies=None, login_domains=["bad domain"]),
                         io.StringIO()) == 2


def test_update_sets_and_clears_the_approval_webhook(aws: None) -> None:
    """docs/ciba.md: https only (loopback http only where the stack allows it), never a private address."""
    from authgate.stores.tenants import TenantStore
    from authgate_cli.admin.tenants import create_tenant, update_tenant

    assert create_tenant(ns(), io.StringIO()) == 0
    assert update_tenant(ns(tenants_command="update", approval_webhook="https://93.184.215.14/hook"),
                         io.StringIO()) == 0
    stored = TenantStore().get("globex")
    assert stored is not None and stored.approval_webhook == "https://93.184.215.14/hook"
    assert update_tenant(ns(tenants_command="update", approval_webhook=""), io.StringIO()) == 0
    stored = TenantStore().get("globex")
    assert stored is not None and stored.approval_webhook == ""


@pytest.mark.parametrize(("url", "why"), [
    ("https://10.0.0.1/hook", "10.0.0.1 -> 10.0.0.1 (private)"),
    ("https://127.0.0.1/hook", "127.0.0.1 -> 127.0.0.1 (loopback)"),
    ("http://hooks.example/x", "not an https URL"),
    ("https://user@hooks.example/x", "no host, or userinfo or a fragment"),
])
def test_an_approval_webhook_outside_the_outbound_rules_is_refused(aws: None, capsys: pytest.CaptureFixture[str],
                                                                   url: str, why: str) -> None:
    from authgate_cli.admin.tenants import create_tenant, update_tenant

    assert create_tenant(ns(), io.StringIO()) == 0
    assert update_tenant(ns(tenants_command="update", approval_webhook=url), io.StringIO()) == 2
    assert capsys.readouterr().err == f"authgate tenants: --approval-webhook {url!r} is refused: {why}\n"
