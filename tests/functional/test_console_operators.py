"""The console's Operators pages (docs/console.md, "Operators"): every operator and their roles for owner and auditor;
a role granted or revoked by an owner, confirmed first, by the implementation `authgate operators grant|revoke` calls
(authgate.people.operator_roles), with its checks and its sentence, and its audit event; the last owner kept.
"""

from __future__ import annotations

import argparse
import io
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    BAR,
    CONSOLE_PAGE_HEADERS,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    page_headers,
)
from tests.functional.person_events_support import TIME, UUID7

Invoke = Any
FORM = "application/x-www-form-urlencoded"
OLIVIA = {"type": "operator", "id": "olivia", "principal": "console:usr_demoolivia000000000000"}


def roles_of(username: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    from authgate.stores.operators import OperatorStore

    operator = OperatorStore().get("operators", username)
    assert operator is not None
    return operator.roles


def asked(invoke: Invoke, cookie: str, query: list[tuple[str, str]]) -> tuple[dict[str, Any], str]:
    """The confirmation page of a change, and the Cookie header that posts its form (the session and the binding)."""
    result = invoke("console", console_event("GET", "/console/operator-role", urlencode(query), cookie=cookie))
    binding = [c.split(";", 1)[0] for c in result["multiValueHeaders"].get("Set-Cookie", [])]
    return result, "; ".join([cookie, *binding])


def post(invoke: Invoke, jar: str, fields: dict[str, str]) -> dict[str, Any]:
    return invoke("console", console_event("POST", "/console/operator-role", cookie=jar,
                                           body=urlencode(fields).encode(), content_type=FORM))


def cli(command: str, username: str, role: str, *tenants: str) -> str:
    """What `authgate operators COMMAND --username U --role R [--tenant T ...]` prints."""
    from authgate_cli.admin.operators import act

    out = io.StringIO()
    assert act(argparse.Namespace(operators_command=command, operator=username, role=role,
                                  tenants=list(tenants) or None, json=False), out) == 0
    return out.getvalue()


def test_an_auditor_reads_every_operator_and_changes_nothing(demo: Any, invoke: Invoke) -> None:
    grant("audrey", "auditor")
    grant("sam", "support", "acme", "demo")
    cookie = operator_session("audrey", "usr_audrey")
    result = invoke("console", console_event("GET", "/console/operators", cookie=cookie))
    assert result["statusCode"] == 200 and page_headers(result) == CONSOLE_PAGE_HEADERS
    assert page_of(result).text() == (
        f"{BAR.format(who='audrey (auditor)')} Operators The people of the operators tenant operators "
        "Username User id Roles State audrey usr_audrey auditor active "
        "olivia usr_demoolivia000000000000 owner active sam usr_sam support (acme, demo) active")
    assert 'aria-current="page">Operators</a>' in result["body"]
    query = [("change", "revoke"), ("username", "sam"), ("role", "support")]
    refused, jar = asked(invoke, cookie, query)
    assert_console_error_page(refused, "operator_forbidden", "Your roles (auditor) do not allow this.", 403)
    # A form with a valid CSRF token of this browser (the home page's sign-out), made to say revoke.
    home = invoke("console", console_event("GET", "/console", cookie=cookie))
    jar = f"{cookie}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    forged = {**page_of(home).hidden(), **dict(query), "tenants": ""}
    assert_console_error_page(post(invoke, jar, forged), "operator_forbidden",
                              "Your roles (auditor) do not allow this.", 403)
    assert roles_of("sam") == (("support", ("acme", "demo")),)


def test_olivia_grants_and_revokes_after_confirming_and_says_what_the_command_says(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    grant("sam", "auditor")
    cookie = operator_session()
    page = invoke("console", console_event("GET", "/console/operators", cookie=cookie))
    text = page_of(page).text()
    assert text.endswith(
        "sam usr_sam auditor active Grant or revoke a role Change grant revoke Operator olivia sam "
        "Role owner admin support auditor Tenants (role support only; several with Ctrl or Shift) acme demo operators "
        "Continue")
    assert [f.get("action") for f in page_of(page).forms] == [
        "http://127.0.0.1:3000/console/sign-out", "http://127.0.0.1:3000/console/operator-role"]

    confirm, jar = asked(invoke, cookie, [("change", "grant"), ("username", "sam"), ("role", "support"),
                                          ("tenant", "demo"), ("tenant", "acme")])
    assert confirm["statusCode"] == 200 and page_headers(confirm) == CONSOLE_PAGE_HEADERS
    assert page_of(confirm).text() == (
        f"{BAR.format(who='olivia (owner)')} Grant support (acme, demo): sam? sam holds auditor now, and will hold "
        "auditor, support (acme, demo). Grant Cancel")
    fields = page_of(confirm).hidden()
    assert {k: v for k, v in fields.items() if k not in ("nonce", "csrf")} == {
        "change": "grant", "username": "sam", "role": "support", "tenants": "acme demo"}
    assert roles_of("sam") == (("auditor", ()),)  # asking changes nothing

    done = post(invoke, jar, fields)
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    assert page_of(done).text() == (f"{BAR.format(who='olivia (owner)')} Grant support: sam Done: operator sam "
                                    "holds auditor, support (acme, demo). Back to the operators")
    assert roles_of("sam") == (("auditor", ()), ("support", ("acme", "demo")))

    confirm, jar = asked(invoke, jar, [("change", "revoke"), ("username", "sam"), ("role", "support"),
                                       ("tenant", "demo")])
    assert "sam holds auditor, support (acme, demo) now, and will hold auditor, support (acme)." in \
        page_of(confirm).text()
    done = post(invoke, jar, page_of(confirm).hidden())
    assert "Done: operator sam holds auditor, support (acme)." in page_of(done).text()

    events = [dict(e) for e in audit_events() if e["action"].startswith("operator.")]
    for event in events:
        assert UUID7.fullmatch(event.pop("id")) and TIME.fullmatch(event.pop("time")) and event.pop("request_id")
    origin = {"source_ip": "127.0.0.1", "user_agent": ""}
    sam = {"type": "user", "id": "usr_sam"}
    assert events == [
        {"tenant": "operators", "actor": OLIVIA, "action": "operator.role_granted", "target": sam,
         "outcome": "success", **origin, "details": {"username": "sam", "via": "console", "console_action": "grant",
                                                     "roles": "owner", "role": "support", "tenants": ["acme", "demo"]}},
        {"tenant": "operators", "actor": OLIVIA, "action": "operator.role_revoked", "target": sam,
         "outcome": "success", **origin, "details": {"username": "sam", "via": "console", "console_action": "revoke",
                                                     "roles": "owner", "role": "support", "tenants": ["demo"]}}]
    # The command says the same of the same change.
    assert cli("grant", "sam", "support", "demo") == "operator sam holds auditor, support (acme, demo)\n"
    assert cli("revoke", "sam", "support", "demo") == "operator sam holds auditor, support (acme)\n"


@pytest.mark.parametrize(("query", "status", "code", "detail"), [
    ([("role", "support")], 400, "invalid_request",
     "role support is held for tenants: name at least one with --tenant."),
    ([("role", "admin"), ("tenant", "acme")], 400, "invalid_request",
     "role admin holds everywhere: --tenant is for role support only."),
    ([("role", "boss")], 400, "invalid_request", "no role 'boss': the roles are owner, admin, support, auditor."),
    ([("role", "admin"), ("change", "revoke")], 400, "invalid_request", "operator 'sam' holds no role admin."),
    ([("role", "support"), ("tenant", "globex")], 404, "not_found", "There is no tenant 'globex'."),
    ([("role", "admin"), ("username", "nobody")], 404, "not_found", "There is no person 'nobody' in tenant 'operators'."),
    ([("role", "admin"), ("change", "promote")], 400, "invalid_request",
     "no change 'promote': the changes are grant, revoke."),
])
def test_a_change_that_does_not_hold_is_refused_in_the_commands_words(
        demo: Any, invoke: Invoke, query: list[tuple[str, str]], status: int, code: str, detail: str) -> None:
    grant("sam", "auditor")
    base = {"change": "grant", "username": "sam"}
    names = {name for name, _ in query}
    result, _ = asked(invoke, operator_session(), [*((k, v) for k, v in base.items() if k not in names), *query])
    assert_console_error_page(result, code, detail, status)
    assert roles_of("sam") == (("auditor", ()),)


def test_a_posted_form_that_does_not_hold_changes_nothing_and_the_refusal_is_recorded(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    grant("sam", "support", "acme")
    confirm, jar = asked(invoke, operator_session(), [("change", "revoke"), ("username", "sam"), ("role", "support")])
    fields = page_of(confirm).hidden()
    assert_console_error_page(post(invoke, jar, {**fields, "role": "admin"}), "invalid_request",
                              "operator 'sam' holds no role admin.", 400)
    assert_console_error_page(post(invoke, jar, {**fields, "csrf": "forged"}), "invalid_request",
                              "The form has expired or was altered. Open it again.", 400)
    assert_console_error_page(post(invoke, jar, {**fields, "change": "grant", "tenants": "globex"}), "not_found",
                              "There is no tenant 'globex'.", 404)
    assert roles_of("sam") == (("support", ("acme",)),)
    assert [(e["action"], e["outcome"], e.get("reason"), e["details"]["role"]) for e in audit_events()] == [
        ("operator.role_revoked", "failure", "role_not_held", "admin"),
        ("operator.role_granted", "failure", "unknown_tenant", "support")]


def test_the_console_keeps_an_owner_which_the_command_does_not(demo: Any, invoke: Invoke, audit_events: Any) -> None:
    """Nobody could give `owner` back in the console once nobody holds it; `authgate operators grant` still can."""
    cookie = operator_session()
    confirm, jar = asked(invoke, cookie, [("change", "revoke"), ("username", "olivia"), ("role", "owner")])
    assert "olivia holds owner now, and will hold none." in page_of(confirm).text()
    fields = page_of(confirm).hidden()
    assert_console_error_page(post(invoke, jar, fields), "invalid_request",
                              "operator 'olivia' is the last owner: grant owner to another operator first.", 400)
    assert roles_of("olivia") == (("owner", ()),)
    grant("owen", "owner")
    from authgate.stores.users import UserStore

    UserStore().set_disabled("operators", "owen", True)  # an owner who cannot sign in keeps no one in
    assert post(invoke, jar, fields)["statusCode"] == 400
    UserStore().set_disabled("operators", "owen", False)
    done = post(invoke, jar, fields)
    assert "Done: operator olivia holds none." in page_of(done).text()
    assert [(e["action"], e["outcome"], e.get("reason")) for e in audit_events()] == [
        ("operator.role_revoked", "failure", "last_owner"), ("operator.role_revoked", "failure", "last_owner"),
        ("operator.role_revoked", "success", None)]
    # olivia holds no role now: her next page is the 403 page.
    assert invoke("console", console_event("GET", "/console/operators", cookie=cookie))["statusCode"] == 403


def test_support_and_admin_get_the_403_page_for_the_operators_pages(demo: Any, invoke: Invoke,
                                                                      audit_events: Any) -> None:
    grant("sam", "support", "demo")
    grant("adam", "admin")
    for roles, cookie in (("support (demo)", operator_session("sam", "usr_sam")),
                          ("admin", operator_session("adam", "usr_adam"))):
        for query in ("", "change=grant&username=sam&role=owner"):
            path = "/console/operator-role" if query else "/console/operators"
            assert_console_error_page(invoke("console", console_event("GET", path, query, cookie=cookie)),
                                      "operator_forbidden", f"Your roles ({roles}) do not allow this.", 403)
        # A valid CSRF token of this browser: the sign-out form of a page the operator may open.
        opened = invoke("console", console_event("GET", "/console/people" if roles != "admin" else "/console",
                                                 cookie=cookie))
        jar = f"{cookie}; {headers_of(opened)['Set-Cookie'].split(';', 1)[0]}"
        forged = {**page_of(opened).hidden(), "change": "grant", "username": "sam", "role": "owner", "tenants": ""}
        assert_console_error_page(post(invoke, jar, forged), "operator_forbidden",
                                  f"Your roles ({roles}) do not allow this.", 403)
    assert roles_of("sam") == (("support", ("demo",)),)
    assert [(e["actor"]["id"], e["action"], e["details"]["console_action"]) for e in audit_events()] == [
        (who, "console.refused", action) for who in ("sam", "adam")
        for action in ("operators.view", "operators.change", "operators.change")]
