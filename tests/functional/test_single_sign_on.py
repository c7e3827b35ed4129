"""Single sign-on at the authorization endpoint (OpenID Connect Core 3.1.2.1, 3.1.2.3, 3.1.2.6): the session a
sign-in opens, a second authorization without the password, remembered consent, prompt and max_age."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.demo import ISSUER, SPA_REDIRECT, WEB_REDIRECT
from tests.functional.authorize_support import Browser, headers_of, page_of, redirect_of, web_params
from tests.functional.openid_support import id_token_of
from tests.functional.token_support import TokenClient, body_of

ALICE = "usr_demoalice0000000000000"
SCOPE = "openid profile charges:read"


def signed_in(browser: Browser, *, username: str = "alice", user_id: str = ALICE, tenant: str = "demo",
              age: int = 0) -> Any:
    """Alice's session in this browser, opened `age` seconds ago, as a sign-in opens it (stores.sessions)."""
    from authgate import clock
    from authgate.stores.sessions import SessionStore

    secret, session = SessionStore().create(tenant_id=tenant, user_id=user_id, username=username, acr="password",
                                            amr=("pwd",), auth_time=clock.seconds() - age, generation=0)
    browser.get(web_params())  # the browser's binding cookie
    browser.cookie = f"{browser.cookie}; authgate_session={secret}"
    return session


def remembered(scopes: str = SCOPE, client_id: str = "demo-web") -> None:
    from authgate.stores.consents import ConsentStore

    ConsentStore().remember("demo", ALICE, client_id, tuple(scopes.split()), None)


def code_of(result: dict[str, Any]) -> str:
    return redirect_of(result).one("code")


def assert_error(result: dict[str, Any], error: str, description: str, base: str = WEB_REDIRECT,
                 status: int = 302) -> None:
    redirect = redirect_of(result)
    assert result["statusCode"] == status
    assert redirect.params == {"error": [error], "error_description": [description], "state": ["xyz-state"],
                               "iss": [ISSUER]}
    assert redirect.base == base


def id_claims(tokens: TokenClient, code: str, **kwargs: Any) -> dict[str, Any]:
    from tests.functional.token_support import claims_of

    return claims_of(body_of(tokens.exchange(code, **kwargs))["id_token"])


# ------------------------------------------------------------------ the sign-in opens a session


@pytest.mark.slow
def test_a_sign_in_opens_a_session_whose_sid_the_id_token_carries(clock: ManualClock, browser: Browser,
                                                                    tokens: TokenClient) -> None:
    from authgate.sessions.model import hash_secret
    from authgate.stores.sessions import SessionStore

    page = page_of(browser.get(web_params(scope=SCOPE, nonce="n")))
    result = browser.submit(page)
    assert result["statusCode"] == 303
    cookie = headers_of(result)["Set-Cookie"]
    secret = cookie.split(";", 1)[0].removeprefix("authgate_session=")
    # Loopback issuer: no Secure (a browser would drop it on http://127.0.0.1); host-only, the issuer's path.
    assert cookie == f"authgate_session={secret}; HttpOnly; SameSite=Lax; Path=/; Max-Age=43200"
    session = SessionStore().live(secret)
    assert session is not None and session.session_hash == hash_secret(secret)
    now = int(clock())
    assert (session.tenant_id, session.user_id, session.username, session.auth_time, session.acr, session.amr,
            session.clients) == ("demo", ALICE, "alice", now, "password", ("pwd",), ("demo-web",))
    assert session.sid != secret and len(session.sid) >= 20
    claims = id_claims(tokens, code_of(result))
    assert (claims["sid"], claims["auth_time"], claims["nonce"]) == (session.sid, now, "n")


# ------------------------------------------------------------------ single sign-on


def test_a_second_authorization_of_the_same_client_needs_no_page(clock: ManualClock, browser: Browser,
                                                                  tokens: TokenClient) -> None:
    session = signed_in(browser, age=300)
    remembered()
    result = browser.get(web_params(scope=SCOPE))
    assert (result["statusCode"], result["body"]) == (302, "")
    assert "Set-Cookie" not in headers_of(result)
    claims = id_claims(tokens, code_of(result))
    assert (claims["sub"], claims["sid"], claims["auth_time"]) == (ALICE, session.sid, int(clock()) - 300)


def test_another_client_of_the_tenant_asks_consent_but_no_password(clock: ManualClock, browser: Browser) -> None:
    session = signed_in(browser)
    remembered()  # demo-web's, not demo-spa's
    params = web_params(client_id="demo-spa", redirect_uri=SPA_REDIRECT, scope=SCOPE, nonce="n")
    page = page_of(browser.get(params))
    assert page.status == 200
    assert [(i["name"], i["type"]) for i in page.inputs] == [("request_blob", "hidden"), ("csrf", "hidden")]
    assert "Signed in as alice ." in page.text()
    result = browser.post(list(page.hidden().items()) + [("decision", "approve")])
    assert result["statusCode"] == 303 and redirect_of(result).base == SPA_REDIRECT
    from authgate.stores.sessions import SessionStore

    (stored,) = [s for s in SessionStore().of_user("demo", ALICE) if s.sid == session.sid]
    assert stored.clients == ("demo-spa",)
    # Now remembered: the next request of demo-spa needs no page at all.
    assert browser.get(params)["statusCode"] == 302


def test_consent_for_more_scopes_than_remembered_is_asked(clock: ManualClock, browser: Browser) -> None:
    signed_in(browser)
    remembered("openid charges:read")
    assert page_of(browser.get(web_params(scope=SCOPE))).status == 200


def test_a_denial_on_the_consent_only_form_is_access_denied(clock: ManualClock, browser: Browser) -> None:
    signed_in(browser)
    page = page_of(browser.get(web_params(scope=SCOPE)))
    assert_error(browser.post(list(page.hidden().items()) + [("decision", "deny")]), "access_denied",
                 "The user denied the request.", status=303)


def test_a_consent_only_form_after_the_session_ended_asks_for_the_password(clock: ManualClock,
                                                                          browser: Browser) -> None:
    from authgate.stores.sessions import SessionStore

    session = signed_in(browser)
    page = page_of(browser.get(web_params(scope=SCOPE)))
    SessionStore().end(session.session_hash)
    again = page_of(browser.post(list(page.hidden().items()) + [("decision", "approve")]))
    assert again.status == 200
    assert [(i["name"], i["type"]) for i in again.inputs][2:] == [("username", "text"), ("password", "password")]
    assert "You were signed out in the meantime. Sign in again to approve." in again.text()


# ------------------------------------------------------------------ prompt and max_age


def test_prompt_none_with_a_session_and_consent_returns_a_code(clock: ManualClock, browser: Browser) -> None:
    signed_in(browser)
    remembered()
    assert sorted(redirect_of(browser.get(web_params(scope=SCOPE, prompt="none"))).params) == [
        "code", "iss", "state"]


def test_prompt_none_without_consent_is_consent_required(clock: ManualClock, browser: Browser) -> None:
    signed_in(browser)
    assert_error(browser.get(web_params(scope=SCOPE, prompt="none")), "consent_required",
                 "The user has not approved these scopes for this client, and prompt=none forbids asking.")


def test_prompt_consent_asks_again(clock: ManualClock, browser: Browser) -> None:
    signed_in(browser)
    remembered()
    page = page_of(browser.get(web_params(scope=SCOPE, prompt="consent")))
    assert page.status == 200 and "Signed in as alice ." in page.text()


def test_prompt_login_shows_the_password_form(clock: ManualClock, browser: Browser) -> None:
    signed_in(browser)
    remembered()
    page = page_of(browser.get(web_params(scope=SCOPE, prompt="login")))
    assert [i["name"] for i in page.inputs] == ["request_blob", "csrf", "username", "password"]


@pytest.mark.parametrize(("max_age", "signed_in_ago", "page"), [("600", 300, False), ("299", 300, True),
                                                                  ("0", 1, True)])
def test_max_age_older_than_the_sign_in_asks_for_the_password(clock: ManualClock, browser: Browser, max_age: str,
                                                              signed_in_ago: int, page: bool) -> None:
    signed_in(browser, age=signed_in_ago)
    remembered()
    result = browser.get(web_params(scope=SCOPE, max_age=max_age))
    assert result["statusCode"] == (200 if page else 302)
    if page:
        assert_error(browser.get(web_params(scope=SCOPE, max_age=max_age, prompt="none")), "login_required",
                     "The user is not signed in, and prompt=none forbids asking them to.")


@pytest.mark.parametrize("expired", [False, True], ids=["fresh", "expired"])
def test_an_id_token_hint_of_the_signed_in_person_gets_a_code(clock: ManualClock, browser: Browser,
                                                              expired: bool) -> None:
    """OIDC Core 3.1.2.1: the person the hint names is signed in, so prompt=none answers positively; a hint
    is about a past sign-in, so its expiry does not matter."""
    signed_in(browser)
    remembered()
    result = browser.get(web_params(scope=SCOPE, prompt="none", id_token_hint=id_token_of(ALICE, expired=expired)))
    assert sorted(redirect_of(result).params) == ["code", "iss", "state"]


def test_an_id_token_hint_of_someone_else_is_not_served_by_this_session(clock: ManualClock,
                                                                        browser: Browser) -> None:
    """The hint names another person than the session's: prompt=none is login_required, otherwise the
    password form (OIDC Core 3.1.2.1: "otherwise, it SHOULD return an error, such as login_required")."""
    signed_in(browser)
    remembered()
    other = id_token_of("usr_someoneelse0000000000")
    assert_error(browser.get(web_params(scope=SCOPE, prompt="none", id_token_hint=other)), "login_required",
                 "The user is not signed in, and prompt=none forbids asking them to.")
    page = page_of(browser.get(web_params(scope=SCOPE, id_token_hint=other)))
    assert [i["name"] for i in page.inputs] == ["request_blob", "csrf", "username", "password"]


@pytest.mark.slow
def test_signing_in_as_someone_else_than_the_id_token_hint_names_is_login_required(clock: ManualClock,
                                                                                  browser: Browser) -> None:
    """OIDC Core 3.1.2.1: the hint names bob; alice signs in on the form it showed. No code and no session:
    an error redirect, login_required. A login_hint naming someone else only fills the username field."""
    from authgate.stores.sessions import SessionStore

    page = page_of(browser.get(web_params(scope=SCOPE, id_token_hint=id_token_of("usr_demobob000000000000000"),
                                          login_hint="bob")))
    assert [i.get("value", "") for i in page.inputs if i["name"] == "username"] == ["bob"]
    result = browser.submit(page)
    assert_error(result, "login_required", "The person who signed in is not the one the id_token_hint names.",
                 status=303)
    assert "Set-Cookie" not in headers_of(result)
    assert SessionStore().of_user("demo", ALICE) == []
    # With no id_token_hint, the same login_hint is only a hint: alice gets her code.
    page = page_of(browser.get(web_params(scope=SCOPE, login_hint="bob")))
    assert sorted(redirect_of(browser.submit(page)).params) == ["code", "iss", "state"]


def test_an_id_token_hint_this_server_did_not_sign_is_invalid_request(clock: ManualClock,
                                                                       browser: Browser) -> None:
    signed_in(browser)
    forged = id_token_of(ALICE).rsplit(".", 1)[0] + ".AAAA"
    assert_error(browser.get(web_params(scope=SCOPE, prompt="none", id_token_hint=forged)), "invalid_request",
                 "The id_token_hint is not an ID token this server issued.")


# ------------------------------------------------------------------ when a session no longer counts


def _set_user(**values: Any) -> None:
    from authgate.records import n, s
    from authgate.stores.users import UserStore

    store = UserStore()
    names = ", ".join(f"{k} = :{k}" for k in values)
    attrs = {f":{k}": ({"BOOL": v} if isinstance(v, bool) else n(v)) for k, v in values.items()}
    store.db.update_item(TableName=store.table, Key={"tenant_id": s("demo"), "username": s("alice")},
                         UpdateExpression=f"SET {names}", ExpressionAttributeValues=attrs)


def test_the_session_lifetimes_are_the_stage_settings(clock: ManualClock, browser: Browser,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """SessionLifetimeSeconds and SessionIdleSeconds (AUTHGATE_SESSION_LIFETIME, _IDLE): a session of a stage
    set to 1 h and 10 min is gone after 10 idle minutes, and a new one expires an hour after it began."""
    from authgate import caches
    from authgate.stores.sessions import SessionStore

    monkeypatch.setenv("AUTHGATE_SESSION_LIFETIME", "3600")
    monkeypatch.setenv("AUTHGATE_SESSION_IDLE", "600")
    caches.reset()
    session = signed_in(browser)
    assert session.expires_at == session.created_at + 3600
    remembered()
    clock.advance(599)
    assert sorted(redirect_of(browser.get(web_params(scope=SCOPE, prompt="none"))).params) == ["code", "iss", "state"]
    clock.advance(600)
    assert_error(browser.get(web_params(scope=SCOPE, prompt="none")), "login_required",
                 "The user is not signed in, and prompt=none forbids asking them to.")
    assert SessionStore().live(browser.cookie.split("authgate_session=", 1)[1].split(";", 1)[0]) is None


@pytest.mark.parametrize("change", ["signed_out_everywhere", "disabled", "idle", "expired", "other_tenant",
                                    "other_user", "ended_in_the_same_second", "disabled_and_enabled_again"])
def test_a_session_that_no_longer_holds_is_ignored(clock: ManualClock, browser: Browser, change: str) -> None:
    from authgate.settings import get_settings

    IDLE, LIFETIME = get_settings().session_idle, get_settings().session_lifetime

    session = signed_in(browser, tenant="acme" if change == "other_tenant" else "demo",
                        user_id="usr_someone0else000000001" if change == "other_user" else ALICE)
    remembered()
    if change == "signed_out_everywhere":
        _set_user(sessions_valid_after=session.auth_time + 1)
    elif change == "disabled":
        _set_user(disabled=True)
    elif change in ("ended_in_the_same_second", "disabled_and_enabled_again"):
        # Whole seconds cannot tell this sign-in from the end that follows it in the same second; the
        # user's session_generation can (users.model.User.admits).
        from authgate.stores.users import UserStore

        users = UserStore()
        if change == "ended_in_the_same_second":
            assert users.end_sessions("demo", "alice", session.auth_time)
        else:
            users.set_disabled("demo", "alice", True)
            users.set_disabled("demo", "alice", False)
    elif change == "idle":
        clock.advance(IDLE)
    elif change == "expired":
        for _ in range(LIFETIME // (IDLE - 1)):  # kept active, yet past its absolute lifetime
            clock.advance(IDLE - 1)
            browser.get(web_params(scope=SCOPE))
        clock.advance(IDLE - 1)
    assert_error(browser.get(web_params(scope=SCOPE, prompt="none")), "login_required",
                 "The user is not signed in, and prompt=none forbids asking them to.")
