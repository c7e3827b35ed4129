"""The console's read-only pages (docs/console.md): home, people, a person; the roles' rule on every request.

Each page is asked as an operator whose console session is open (tests/functional/console_support.py), and its
whole response is checked: status, the strict page headers, the text a person reads. What the operator's roles do
not allow is the console's 403 page before anything of it is read, whatever the URL says.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    ADMIN_BAR,
    BAR,
    SUPPORT_BAR,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    shown,
)

Invoke = Any


# What the home page says an owner may open, as its text reads.
OPENS = (
    ("People", "find a person by username, email or id, and see their account"),
    ("Clients", "a tenant's clients and each one's registration; register, change, rotate a secret, delete"),
    ("Resources", "the APIs tokens are issued for: register, change, delete"),
    ("Tenants", ("every tenant and its settings: currencies, second factor, strong authentication for charges, "
                 "which applications its people may allow")),
    ("Identity providers", "the identity providers a tenant's people sign in with"),
    ("Keys", "the signing keys, their states and public keys; rotate them; the SAML request-signing keys"),
    ("Events", "what happened, and who did it: the audit trail's events"),
    ("Operators", "the console's operators and their roles"),
)


def test_the_home_page_says_who_is_signed_in_with_which_roles_until_when(
        demo: Any, invoke: Invoke, clock: ManualClock) -> None:
    cookie = operator_session()
    result = invoke("console", console_event("GET", "/console", cookie=cookie))
    assert shown(result) == (
        f"{BAR.format(who='olivia (owner)')} Console You are olivia (Olivia Operator), with the roles owner . "
        "You signed in at 2025-06-15 15:06:40 UTC; this sign-in serves the console until 2025-06-16 03:06:40 UTC, "
        "then you sign in again. What you can open " + " ".join(f"{label} : {what}" for label, what in OPENS))
    page = page_of(result)
    assert [f.get("action") for f in page.forms] == ["http://127.0.0.1:3000/console/sign-out"]
    assert set(page.hidden()) == {"nonce", "csrf"} and page.hidden()["nonce"].startswith("console.")
    assert '<a href="http://127.0.0.1:3000/console" aria-current="page">Home</a>' in result["body"]


def test_people_are_found_by_the_start_of_a_username_an_email_or_a_user_id(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    row = "bob Bob Example bob@demo.example active"
    for query in ("tenant=demo&q=b", "tenant=demo&q=BOB%40demo.example", "tenant=demo&q=usr_demobob000000000000000"):
        text = shown(invoke("console", console_event("GET", "/console/people", query, cookie=cookie)))
        assert text.endswith(f"Username Name Email State {row}"), text
    text = shown(invoke("console", console_event("GET", "/console/people", "tenant=demo", cookie=cookie)))
    assert text == (f"{BAR.format(who='olivia (owner)')} People New person Tenant acme demo operators Username, email "
                    "or user id "
                    "Find People of demo Username Name Email State alice Alice Example alice@demo.example active "
                    f"{row}")
    text = shown(invoke("console", console_event("GET", "/console/people", "tenant=demo&q=zed", cookie=cookie)))
    assert text.endswith("Find Nobody matches 'zed'.")


def test_a_tenants_people_come_a_page_at_a_time(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.users import UserStore

    for number in range(25):
        UserStore().put_hash("acme", f"person{number:02d}", "not-a-password-hash", overwrite=False)
    cookie = operator_session()
    first = invoke("console", console_event("GET", "/console/people", "tenant=acme", cookie=cookie))
    names = [n for n in shown(first).split() if re.fullmatch(r"person\d\d", n)]
    assert names == [f"person{n:02d}" for n in range(20)]
    (more,) = [a for a in page_of(first).body.split('"') if "after=" in a]
    query = urlsplit(more.replace("&amp;", "&")).query
    assert parse_qs(query) == {"tenant": ["acme"], "after": ["person19"]}
    second = shown(invoke("console", console_event("GET", "/console/people", query, cookie=cookie)))
    assert [n for n in second.split() if re.fullmatch(r"person\d\d", n)] == [f"person{n:02d}" for n in range(20, 25)]
    assert "People of acme (continued)" in second and "Next page" not in second


def test_a_persons_page_shows_their_account_and_never_a_secret(demo: Any, invoke: Invoke, clock: ManualClock) -> None:
    from authgate.stores.consents import ConsentStore
    from authgate.stores.sessions import SessionStore

    SessionStore().create(tenant_id="demo", user_id="usr_demobob000000000000000", username="bob", acr="mfa",
                          amr=("pwd", "otp", "mfa"), generation=0)
    ConsentStore().remember("demo", "usr_demobob000000000000000", "demo-web", ("openid", "charges:read"), None)
    ConsentStore().remember("demo", "usr_demobob000000000000000", "demo-agent", ("mcp:read",), "https://mcp.example")
    result = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob",
                                             cookie=operator_session()))
    text = shown(result)
    assert text.startswith(f"{BAR.format(who='olivia (owner)')} bob (demo) Profile Username bob User id "
                           "usr_demobob000000000000000 Name Bob Example Email bob@demo.example (verified) State active "
                           "Created ")
    assert text.endswith(
        "Sessions ended before never Actions Edit Disable Unlock Reset the second factor End the sessions Send a reset "
        "link Set a temporary password Delete "
        "Sign-in sessions 1 live sign-in session Signed in How Last active Applications "
        "2025-06-15 15:06:40 UTC mfa (pwd otp mfa) 2025-06-15 15:06:40 UTC - Second factors One-time code set up "
        "(0 recovery codes left) Passkeys none Linked identities No identity at an identity provider is linked. "
        "Consents 2 remembered consents Client Scopes Action demo-agent mcp:read (for https://mcp.example) Withdraw "
        "demo-web charges:read openid Withdraw "
        "Recent events No event of the last 24 hours names bob. Every event of bob")
    assert "GEZDGNBVGY3TQOJQ" not in result["body"] and 'type="password"' not in result["body"]


def test_support_sees_the_people_of_its_tenants_only_whatever_the_url_says(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("acme", "carol", "not-a-password-hash", overwrite=False, name="Carol Acme")
    grant("sam", "support", "acme")
    cookie = operator_session("sam", "usr_sam")
    text = shown(invoke("console", console_event("GET", "/console/people", cookie=cookie)))
    assert text.startswith(f"{SUPPORT_BAR.format(who='sam (support (acme))')} People Tenant acme Username")
    assert text.endswith("People of acme Username Name Email State carol Carol Acme - active")
    assert shown(invoke("console", console_event("GET", "/console/person", "tenant=acme&username=carol",
                                                 cookie=cookie))).startswith(
        f"{SUPPORT_BAR.format(who='sam (support (acme))')} carol (acme)")
    for path, query in (("/console/people", "tenant=demo"), ("/console/people", "tenant=demo&q=bob"),
                        ("/console/person", "tenant=demo&username=bob"),
                        ("/console/person", "tenant=demo&username=nobody")):
        result = invoke("console", console_event("GET", path, query, cookie=cookie))
        assert_console_error_page(result, "operator_forbidden",
                                  "Your roles (support (acme)) do not allow this in tenant demo.", 403)


def test_an_admin_configures_and_sees_no_one_and_an_auditor_reads(demo: Any, invoke: Invoke) -> None:
    grant("adam", "admin")
    admin = operator_session("adam", "usr_adam")
    home = invoke("console", console_event("GET", "/console", cookie=admin))
    assert shown(home).startswith(ADMIN_BAR.format(who="adam (admin)"))
    assert_console_error_page(invoke("console", console_event("GET", "/console/people", cookie=admin)),
                              "operator_forbidden", "Your roles (admin) do not allow this.", 403)
    grant("audrey", "auditor")
    auditor = operator_session("audrey", "usr_audrey")
    assert shown(invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob",
                                                 cookie=auditor))).startswith(
        f"{BAR.format(who='audrey (auditor)')} bob (demo) Profile")
    grant("nora", "auditor")
    operator_cookie = operator_session("nora", "usr_nora")
    from authgate.stores.operators import OperatorStore

    store = OperatorStore()
    store.set_roles(store.get("operators", "nora"), ())  # type: ignore[arg-type]
    assert_console_error_page(invoke("console", console_event("GET", "/console", cookie=operator_cookie)),
                              "operator_forbidden", "Your roles (none) do not allow this.", 403)


@pytest.mark.parametrize("ended", ["max_age", "disabled", "sessions_ended", "another_person"])
def test_a_session_ends_at_max_age_and_with_the_person(demo: Any, invoke: Invoke, clock: ManualClock,
                                                      ended: str) -> None:
    from authgate.stores.users import UserStore

    cookie = operator_session(age=100)
    assert invoke("console", console_event("GET", "/console", cookie=cookie))["statusCode"] == 200
    if ended == "max_age":
        clock.advance(43200 - 100)
    elif ended == "disabled":
        UserStore().set_disabled("operators", "olivia", True)
    elif ended == "sessions_ended":
        UserStore().end_sessions("operators", "olivia", int(clock()))
    else:
        UserStore().put_hash("operators", "olivia", "not-a-password-hash")  # the username, another person
    result = invoke("console", console_event("GET", "/console", cookie=cookie))
    assert result["statusCode"] == 302
    assert headers_of(result)["Location"].startswith("http://127.0.0.1:3000/oauth/authorize?")


def test_sign_out_ends_the_session_and_signs_out_at_the_stack(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    home = invoke("console", console_event("GET", "/console", cookie=cookie))
    binding = headers_of(home)["Set-Cookie"].split(";", 1)[0]
    jar = f"{cookie}; {binding}"
    form = "&".join(f"{k}={v}" for k, v in page_of(home).hidden().items())
    result = invoke("console", console_event("POST", "/console/sign-out", cookie=jar, body=form.encode(),
                                             content_type="application/x-www-form-urlencoded"))
    assert (result["statusCode"], result["body"]) == (303, "")
    headers = headers_of(result)
    location = urlsplit(headers.pop("Location"))
    assert {k: v for k, v in headers.items() if k != "x-request-id"} == {
        "Cache-Control": "no-store", "Pragma": "no-cache", "Referrer-Policy": "no-referrer",
        "Set-Cookie": "authgate_console=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"}
    assert (location.netloc, location.path) == ("127.0.0.1:3000", "/oauth/logout")
    assert parse_qs(location.query) == {
        "id_token_hint": ["header.claims.signature"], "client_id": ["authgate-console"],
        "post_logout_redirect_uri": ["http://127.0.0.1:3000/console/signed-out"]}
    again = invoke("console", console_event("GET", "/console", cookie=jar))
    assert again["statusCode"] == 302  # the session is gone: sign in again
    signed_out = invoke("console", console_event("GET", "/console/signed-out"))
    assert page_of(signed_out).text() == "Signed out You have signed out of the console. Sign in again"


def test_a_sign_out_form_of_no_page_of_this_browser_is_refused(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    result = invoke("console", console_event("POST", "/console/sign-out", cookie=cookie,
                                             body=b"nonce=console.x&csrf=forged",
                                             content_type="application/x-www-form-urlencoded"))
    assert_console_error_page(result, "invalid_request", "The form has expired or was altered. Open it again.", 400)
    assert invoke("console", console_event("GET", "/console", cookie=cookie))["statusCode"] == 200  # still signed in


@pytest.mark.parametrize(("method", "path", "status", "extra"), [
    ("GET", "/console/nosuch", 404, {}),
    ("PUT", "/console/people", 405, {"Allow": "GET, POST"}),
    ("GET", "/console/sign-out", 405, {"Allow": "POST"}),
])
def test_an_unknown_page_or_method_is_the_console_error_page(demo: Any, invoke: Invoke, method: str, path: str,
                                                             status: int, extra: dict[str, str]) -> None:
    result = invoke("console", console_event(method, path, cookie=operator_session()))
    assert result["statusCode"] == status
    assert {k: headers_of(result)[k] for k in extra} == extra
    assert "<p class=\"meta\">Error code: <code>" + ("not_found" if status == 404 else "method_not_allowed") \
        in result["body"]


def test_a_repeated_or_overlong_parameter_is_a_bad_request(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    assert_console_error_page(invoke("console", console_event("GET", "/console/people", "tenant=demo&tenant=acme",
                                                              cookie=cookie)),
                              "invalid_request", "The tenant parameter is repeated.", 400)
    assert_console_error_page(invoke("console", console_event("GET", "/console/people", "q=" + "x" * 300,
                                                              cookie=cookie)),
                              "invalid_request", "The q parameter is too long or holds control characters.", 400)
