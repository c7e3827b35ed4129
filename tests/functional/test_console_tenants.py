"""The console's tenant pages (docs/console.md, "Tenants"): every tenant, one tenant's settings in words, and the
forms that create a tenant and change its settings through the one implementation `authgate tenants create|update`
calls too (authgate.administration.tenants), with its checks and its messages; the roles' rule before anything is
read, whatever the URL or a replayed form says; a change that weakens a tenant's security asked for first.
"""

from __future__ import annotations

import argparse
import io
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    ADMIN_BAR,
    BAR,
    CONSOLE_PAGE_HEADERS,
    OLIVIA,
    ORIGIN,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    page_headers,
    whole,
)

Invoke = Any
FORM = "application/x-www-form-urlencoded"
OWNER = BAR.format(who="olivia (owner)")


def get(invoke: Invoke, cookie: str, path: str, query: str = "") -> dict[str, Any]:
    return invoke("console", console_event("GET", path, query, cookie=cookie))


def form(invoke: Invoke, cookie: str, path: str, query: str = "") -> tuple[dict[str, Any], dict[str, str], str]:
    """A form page, the fields its form posts as they are, and the Cookie header that posts it (session, binding)."""
    result = get(invoke, cookie, path, query)
    assert result["statusCode"] == 200, result["body"]
    binding = [c.split(";", 1)[0] for c in result["multiValueHeaders"].get("Set-Cookie", [])]
    page = page_of(result)
    fields = {i["name"]: i.get("value", "") for i in page.inputs
              if i.get("type") != "radio" or "checked" in i}
    return result, fields, "; ".join([cookie, *binding])


def post(invoke: Invoke, jar: str, path: str, fields: dict[str, str]) -> dict[str, Any]:
    return invoke("console", console_event("POST", path, cookie=jar, body=urlencode(fields).encode(),
                                           content_type=FORM))


def tenant(tenant_id: str = "demo") -> Any:
    from authgate.stores.tenants import TenantStore

    return TenantStore().get(tenant_id)


def cli(command: str, tenant_id: str, **settings: Any) -> str:
    """What `authgate tenants create|update TENANT ...` prints (its arguments as the parser leaves them)."""
    from authgate.administration.tenant_settings import SETTINGS
    from authgate_cli.admin.tenants import ACTIONS

    out = io.StringIO()
    args = argparse.Namespace(tenant_id=tenant_id, json=False, tenants_command=command,
                              **{s.field: settings.get(s.field) for s in SETTINGS})
    assert ACTIONS[command](args, out) == 0
    return out.getvalue()


DEMO_SETTINGS = (
    "Settings Tenant id demo Name Demo Inc. The tenant as people read it. Currencies usd, eur The currencies its "
    "charges may use (ISO 4217 codes, at least one). Forbidden scopes charges:refund What its people may never allow "
    "an application to do, whatever the application asks. Approved applications demo-fapi, demo-spa, demo-web "
    "Applications registered to need an administrator's approval that this tenant's administrator approved: its "
    "people may sign in to them. Applications known by a metadata document * Its people may allow applications "
    "whose metadata document is on these hosts (a leading dot: any host under that domain; *: anywhere). "
    "Self-registered applications yes Whether its people may allow applications that registered themselves. "
    "Self-registered applications at most 100 How many self-registered applications it holds at most. Login domains "
    "none People whose email address is at one of these domains sign in with it, without typing the organisation (a "
    "domain belongs to one tenant). Second factor for charges from 10000 minor units A charge of at least this amount "
    "(in minor units, cents) needs a sign-in with a second factor; off: no charge does. Age of that sign-in, at most "
    "300 seconds How old that sign-in may be. Second factor required no Whether every sign-in of its people needs a "
    "second factor (a one-time code or a passkey) after the password; someone without one sets one up at their next "
    "sign-in. Approval webhook off Where the approval link of each backchannel request is posted (OpenID Connect "
    "CIBA); off: nowhere.")


def test_olivia_lists_every_tenant_and_opens_the_settings_of_demo(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    listed = get(invoke, cookie, "/console/tenants")
    assert listed["statusCode"] == 200 and page_headers(listed) == CONSOLE_PAGE_HEADERS
    assert page_of(listed).text() == (
        f"{OWNER} Tenants 3 tenants Tenant Name Currencies Second factor required acme Acme Corp. usd no demo Demo "
        "Inc. usd, eur no operators Operators none yes Create a tenant")
    assert 'href="http://127.0.0.1:3000/console/tenant?tenant=demo"' in listed["body"]
    shown = get(invoke, cookie, "/console/tenant", "tenant=demo")
    assert shown["statusCode"] == 200 and page_headers(shown) == CONSOLE_PAGE_HEADERS
    assert page_of(shown).text() == f"{OWNER} Tenant demo People of demo Change the settings {DEMO_SETTINGS}"
    assert 'href="http://127.0.0.1:3000/console/people?tenant=demo"' in shown["body"]
    assert 'href="http://127.0.0.1:3000/console/tenant-update?tenant=demo"' in shown["body"]
    home = page_of(get(invoke, cookie, "/console")).text()
    assert ("Tenants : every tenant and its settings: currencies, second factor, strong authentication for charges, "
            "which applications its people may allow") in home
    assert_console_error_page(get(invoke, cookie, "/console/tenant", "tenant=nosuch"), "not_found",
                              "There is no tenant 'nosuch'.", 404)


def test_olivia_changes_one_setting_only_it_changes_and_the_command_says_the_same(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    cookie = operator_session()
    asked, fields, jar = form(invoke, cookie, "/console/tenant-update", "tenant=demo")
    assert page_headers(asked) == CONSOLE_PAGE_HEADERS
    assert {k: v for k, v in fields.items() if k not in ("nonce", "csrf")} == {
        "tenant": "demo", "name": "Demo Inc.", "currencies": "usd eur", "forbidden_scopes": "charges:refund",
        "approved_clients": "demo-fapi demo-spa demo-web", "client_metadata_hosts": "*", "registered_clients": "yes",
        "registered_clients_cap": "100", "login_domains": "", "sca_threshold": "10000", "sca_max_age": "300",
        "require_mfa": "no", "approval_webhook": ""}
    before = tenant()
    done = post(invoke, jar, "/console/tenant-update", {**fields, "currencies": "usd eur gbp"})
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    assert page_of(done).text() == (f"{OWNER} Change the settings of demo Done: tenant demo updated (usd, eur, gbp). "
                                    "The settings of demo")
    assert tenant() == before._replace(currencies=("usd", "eur", "gbp"))
    assert whole(audit_events(), "tenant.changed") == {
        "tenant": "demo", "actor": OLIVIA, "action": "tenant.changed", "target": {"type": "tenant", "id": "demo"},
        "outcome": "success", **ORIGIN, "details": {"via": "console", "console_action": "update", "roles": "owner",
                                                    "currencies": ["usd", "eur", "gbp"]}}
    unchanged = post(invoke, jar, "/console/tenant-update", {**fields, "currencies": "usd eur gbp"})
    assert "Done: nothing changed: every setting is as it was." in page_of(unchanged).text()
    assert cli("update", "demo", currencies=["usd", "eur"]) == "tenant demo updated (usd, eur)\n"


def test_a_change_that_weakens_the_tenant_is_asked_for_first(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.tenants import TenantStore

    TenantStore().put(tenant()._replace(require_mfa=True))
    cookie = operator_session()
    _, fields, jar = form(invoke, cookie, "/console/tenant-update", "tenant=demo")
    assert fields["require_mfa"] == "yes"
    asked = post(invoke, jar, "/console/tenant-update", {**fields, "require_mfa": "no", "name": "Demo"})
    assert asked["statusCode"] == 200 and page_headers(asked) == CONSOLE_PAGE_HEADERS
    page = page_of(asked)
    assert page.text() == (
        f"{OWNER} Weaken the security of demo? This weakens the security of tenant demo: Second factor required: yes "
        "becomes no. It also changes: Name: Demo Inc. becomes Demo. Change the settings Cancel")
    assert {k: v for k, v in page.hidden().items() if k not in ("nonce", "csrf")} == {
        "tenant": "demo", "confirmed": "yes", "name": "Demo", "require_mfa": "no"}
    assert tenant().require_mfa is True and tenant().name == "Demo Inc."  # asking changes nothing
    done = post(invoke, jar, "/console/tenant-update", page.hidden())
    assert "Done: tenant demo updated (usd, eur)." in page_of(done).text()
    assert (tenant().require_mfa, tenant().name) == (False, "Demo")
    # Making it stronger asks nothing.
    stronger = post(invoke, jar, "/console/tenant-update", {**fields, "require_mfa": "yes", "name": "Demo"})
    assert "Done: tenant demo updated (usd, eur)." in page_of(stronger).text() and tenant().require_mfa is True


def test_olivia_creates_a_tenant_as_the_command_does(demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.tenants.model import Tenant

    cookie = operator_session()
    asked, fields, jar = form(invoke, cookie, "/console/tenant-create")
    assert page_headers(asked) == CONSOLE_PAGE_HEADERS
    assert page_of(asked).text().startswith(
        f"{OWNER} Create a tenant Tenant id 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or "
        "digit; it never changes. Name The tenant as people read it. (--name) Currencies")
    assert {k: v for k, v in fields.items() if k not in ("nonce", "csrf")} == {
        "tenant": "", "name": "", "currencies": "", "forbidden_scopes": "", "approved_clients": "",
        "client_metadata_hosts": "", "registered_clients": "no", "registered_clients_cap": "100", "login_domains": "",
        "sca_threshold": "", "sca_max_age": "300", "require_mfa": "no", "approval_webhook": ""}
    done = post(invoke, jar, "/console/tenant-create", {**fields, "tenant": "globex", "currencies": "USD",
                                                        "require_mfa": "yes", "login_domains": "globex.example"})
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    assert page_of(done).text() == (f"{OWNER} Tenant globex created Done: tenant globex created (usd). The settings "
                                    "of globex")
    assert tenant("globex") == Tenant("globex", name="globex", currencies=("usd",), require_mfa=True,
                                      login_domains=("globex.example",))
    event = whole(audit_events(), "tenant.created")
    assert event == {
        "tenant": "globex", "actor": OLIVIA, "action": "tenant.created", "target": {"type": "tenant", "id": "globex"},
        "outcome": "success", **ORIGIN, "details": {
            "via": "console", "console_action": "create", "roles": "owner", "currencies": ["usd"],
            "forbidden_scopes": [], "approved_clients": [], "client_metadata_hosts": [], "registered_clients": False,
            "registered_clients_cap": 100, "login_domains": ["globex.example"], "sca_threshold": None,
            "sca_max_age": 300, "require_mfa": True, "approval_webhook": ""}}
    again = post(invoke, jar, "/console/tenant-create", {**fields, "tenant": "globex", "currencies": "usd"})
    assert_console_error_page(again, "invalid_request", "tenant 'globex' already exists", 400)
    # The login domain is globex's now; demo lets one go (released) and cannot take globex's.
    _, update, jar = form(invoke, jar, "/console/tenant-update", "tenant=demo")
    taken = post(invoke, jar, "/console/tenant-update", {**update, "login_domains": "globex.example"})
    assert_console_error_page(taken, "invalid_request",
                              "the login domain 'globex.example' already belongs to tenant 'globex'", 400)
    post(invoke, jar, "/console/tenant-update", {**update, "login_domains": "demo.example"})
    post(invoke, jar, "/console/tenant-update", {**update, "login_domains": ""})
    from authgate.stores.tenants import TenantStore

    assert (TenantStore().login_domain_owner("demo.example"), tenant().login_domains) == ("", ())
    assert cli("create", "initech", currencies=["usd"]) == (
        "tenant initech created (usd)\nnext: authgate clients create --tenant initech ...\n")


@pytest.mark.parametrize(("path", "fields", "detail"), [
    ("tenant-update", {"currencies": "usd xyz"}, "unknown currency 'xyz': an ISO 4217 code such as usd or eur"),
    ("tenant-update", {"currencies": ""},
     "give at least one --currency (the currencies this tenant's charges may use)"),
    ("tenant-update", {"forbidden_scopes": "charges:refund nope"},
     "unknown scope 'nope'; known: charges:read charges:write charges:refund openid profile email offline_access"),
    ("tenant-update", {"sca_max_age": "a day"}, "--sca-max-age must be an integer from 1 to 86400 seconds, got 'a day'"),
    ("tenant-update", {"require_mfa": "maybe"}, "Second factor required (--require-mfa) is yes or no."),
    ("tenant-update", {"tenant": "a b"},
     "invalid tenant id 'a b': 1-64 characters, letters, digits, '.', '_' or '-', starting with a letter or digit"),
    ("tenant-create", {"tenant": "a b", "currencies": "usd"},
     "invalid tenant id 'a b': 1-64 characters, letters, digits, '.', '_' or '-', starting with a letter or digit"),
    ("tenant-create", {"tenant": "globex"},
     "give at least one --currency (the currencies this tenant's charges may use)"),
    ("tenant-update", {"csrf": "forged"}, "The form has expired or was altered. Open it again."),
])
def test_bad_input_is_the_400_page_with_the_commands_message_and_changes_nothing(
        demo: Any, invoke: Invoke, path: str, fields: dict[str, str], detail: str) -> None:
    from authgate.stores.tenants import TenantStore

    cookie = operator_session()
    _, shown, jar = form(invoke, cookie, f"/console/{path}", "tenant=demo" if path == "tenant-update" else "")
    before = sorted(TenantStore().list())
    assert_console_error_page(post(invoke, jar, f"/console/{path}", {**shown, **fields}), "invalid_request",
                              detail, 400)
    assert sorted(TenantStore().list()) == before


PAGES = [("/console/tenants", ""), ("/console/tenant", "tenant=demo"), ("/console/tenant-create", ""),
         ("/console/tenant-update", "tenant=demo")]


def test_support_gets_the_403_page_for_every_tenant_page_and_form(demo: Any, invoke: Invoke,
                                                                   audit_events: Any) -> None:
    _, create, _ = form(invoke, operator_session(), "/console/tenant-create")
    _, update, _ = form(invoke, operator_session(), "/console/tenant-update", "tenant=demo")
    grant("sam", "support", "demo")
    cookie = operator_session("sam", "usr_sam")
    home = get(invoke, cookie, "/console/people", "tenant=demo")
    assert home["statusCode"] == 200 and "Tenants" not in page_of(home).text()
    for path, query in PAGES:
        where = " in tenant demo" if query else ""
        assert_console_error_page(get(invoke, cookie, path, query), "operator_forbidden",
                                  f"Your roles (support (demo)) do not allow this{where}.", 403)
    # Forms of olivia's, replayed with a valid CSRF token of sam's browser (the sign-out form of his people page).
    jar = f"{cookie}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    csrf = page_of(home).hidden()
    forged = post(invoke, jar, "/console/tenant-update", {**update, **csrf, "require_mfa": "yes"})
    assert_console_error_page(forged, "operator_forbidden", "Your roles (support (demo)) do not allow this in tenant "
                                                            "demo.", 403)
    forged = post(invoke, jar, "/console/tenant-create", {**create, **csrf, "tenant": "globex", "currencies": "usd"})
    assert_console_error_page(forged, "operator_forbidden", "Your roles (support (demo)) do not allow this.", 403)
    assert (tenant().require_mfa, tenant("globex")) == (False, None)
    sam = {"type": "operator", "id": "sam", "principal": "console:usr_sam"}
    refused = [(e["tenant"], e["actor"], e["target"], e["outcome"], e["reason"], e["details"]) for e in audit_events()
               if e["action"] == "console.refused"]
    assert refused == [
        ("", sam, {"type": "tenant", "id": "-"}, "failure", "role",
         {"console_action": "tenants.view", "roles": "support (demo)"}),
        ("demo", sam, {"type": "tenant", "id": "demo"}, "failure", "role",
         {"console_action": "tenants.view", "roles": "support (demo)"}),
        ("", sam, {"type": "tenant", "id": "-"}, "failure", "role",
         {"console_action": "tenants.change", "roles": "support (demo)"}),
        ("demo", sam, {"type": "tenant", "id": "demo"}, "failure", "role",
         {"console_action": "tenants.change", "roles": "support (demo)"}),
        ("demo", sam, {"type": "tenant", "id": "demo"}, "failure", "role",
         {"console_action": "tenants.change", "roles": "support (demo)"}),
        ("", sam, {"type": "tenant", "id": "-"}, "failure", "role",
         {"console_action": "tenants.change", "roles": "support (demo)"})]


def test_an_auditor_sees_the_settings_but_no_action_and_a_form_posted_anyway_changes_nothing(
        demo: Any, invoke: Invoke) -> None:
    _, update, _ = form(invoke, operator_session(), "/console/tenant-update", "tenant=demo")
    grant("audrey", "auditor")
    cookie = operator_session("audrey", "usr_audrey")
    auditor = BAR.format(who="audrey (auditor)")
    listed = get(invoke, cookie, "/console/tenants")
    assert page_of(listed).text() == (
        f"{auditor} Tenants 3 tenants Tenant Name Currencies Second factor required acme Acme Corp. usd no demo Demo "
        "Inc. usd, eur no operators Operators none yes")
    shown = get(invoke, cookie, "/console/tenant", "tenant=demo")
    assert page_of(shown).text() == f"{auditor} Tenant demo People of demo {DEMO_SETTINGS}"
    for path, query in PAGES[2:]:
        where = " in tenant demo" if query else ""
        assert_console_error_page(get(invoke, cookie, path, query), "operator_forbidden",
                                  f"Your roles (auditor) do not allow this{where}.", 403)
    home = get(invoke, cookie, "/console")
    jar = f"{cookie}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    forged = post(invoke, jar, "/console/tenant-update", {**update, **page_of(home).hidden(), "require_mfa": "yes"})
    assert_console_error_page(forged, "operator_forbidden", "Your roles (auditor) do not allow this in tenant demo.",
                              403)
    assert tenant().require_mfa is False


def test_an_admin_changes_settings_but_finds_no_people(demo: Any, invoke: Invoke) -> None:
    grant("adam", "admin")
    cookie = operator_session("adam", "usr_adam")
    shown = get(invoke, cookie, "/console/tenant", "tenant=demo")
    assert page_of(shown).text() == (f"{ADMIN_BAR.format(who='adam (admin)')} Tenant demo Change the "
                                     f"settings {DEMO_SETTINGS}")
    _, fields, jar = form(invoke, cookie, "/console/tenant-update", "tenant=demo")
    done = post(invoke, jar, "/console/tenant-update", {**fields, "sca_threshold": "5000"})
    assert "Done: tenant demo updated (usd, eur)." in page_of(done).text() and tenant().sca_threshold == 5000
