"""GET and POST /oauth/logout through the authorize function (OpenID Connect RP-Initiated Logout 1.0)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate_cli.local.events import HttpRequest, build_event
from tests.conftest import Invoke
from tests.functional.authorize_support import (
    ERROR_PAGE_CSP,
    Browser,
    headers_of,
    page_of,
    redirect_of,
    web_params,
    without_request_id,
)
from tests.functional.logout_support import ALICE, BACK, CLEARED, hint, logout, signed_in
from tests.functional.self_registration_support import register
from tests.functional.token_support import body_of

# Where a client that registered itself (RFC 7591) asks sign-out to send people: a site of its choosing.
ELSEWHERE = "https://phish.example/signed-out"


def live(session: Any) -> bool:
    from authgate.stores.sessions import SessionStore

    return any(s.sid == session.sid for s in SessionStore().of_user("demo", ALICE))


@pytest.fixture
def self_registered(dcr: None, invoke: Invoke) -> str:
    """A client anyone could have registered (POST /oauth/register), with ELSEWHERE as its post-logout URI."""
    return str(body_of(register(invoke, post_logout_redirect_uris=[ELSEWHERE]))["client_id"])


def assert_offered(result: dict[str, Any], location: str) -> None:
    """The whole "signed out" page offering `location` as a link, followed by nothing."""
    assert result["statusCode"] == 200
    assert without_request_id(result) == {
        "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Pragma": "no-cache",
        "Content-Security-Policy": ERROR_PAGE_CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer", **({"Set-Cookie": CLEARED} if "Set-Cookie" in headers_of(result) else {})}
    assert page_of(result).text() == (
        "You are signed out You are signed out. The application asks to take you to https://phish.example . It "
        "registered itself with this server, which cannot vouch for that address: go on only if you trust it. "
        "Continue to https://phish.example")
    assert f'<a href="{location.replace("&", "&amp;")}" rel="noreferrer">' in result["body"]


def assert_page_error(result: dict[str, Any], detail: str) -> None:
    assert result["statusCode"] == 400 and "Location" not in headers_of(result)
    text = page_of(result).text()
    assert detail in text and "Error code: invalid_request" in text


def test_a_hint_of_the_session_signs_out_at_once_and_goes_back_with_state(clock: ManualClock,
                                                                         browser: Browser) -> None:
    session = signed_in(browser)
    result = logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK),
                              ("state", "s-1")])
    headers = {k: v for k, v in headers_of(result).items() if k != "x-request-id"}
    assert (result["statusCode"], result["body"]) == (302, "")
    assert headers == {"Location": f"{BACK}?state=s-1", "Cache-Control": "no-store", "Pragma": "no-cache",
                       "Referrer-Policy": "no-referrer", "Set-Cookie": CLEARED}
    assert not live(session)
    # Signed out: the next silent authorization needs a sign-in.
    redirect = browser.get(web_params(scope="openid charges:read", prompt="none"))
    assert "error=login_required" in headers_of(redirect)["Location"]


def test_without_a_hint_the_person_confirms_first(clock: ManualClock, browser: Browser) -> None:
    session = signed_in(browser)
    page = page_of(logout(browser, [("client_id", "demo-web"), ("post_logout_redirect_uri", BACK),
                                    ("state", "s-2")]))
    assert page.status == 200 and live(session)
    assert page.text().startswith("Sign out? Demo web app asks to sign you out of this server. You are signed in "
                                  "as alice .")
    assert page.forms == [{"method": "post", "action": "logout"}]
    fields = page.hidden()
    assert sorted(fields) == ["client_id", "csrf", "post_logout_redirect_uri", "state"]
    forged = logout(browser, [*{**fields, "csrf": "x" * 43}.items(), ("confirm", "yes")], method="POST")
    assert forged["statusCode"] == 200 and live(session)  # asked again, nothing ended
    result = logout(browser, [*fields.items(), ("confirm", "yes")], method="POST")
    assert result["statusCode"] == 302 and headers_of(result)["Location"] == f"{BACK}?state=s-2"
    assert not live(session)


def test_with_nowhere_trusted_to_go_the_end_is_a_page(clock: ManualClock, browser: Browser) -> None:
    session = signed_in(browser)
    result = logout(browser, [("id_token_hint", hint(session))])
    assert result["statusCode"] == 200 and page_of(result).text() == (
        "You are signed out You are signed out. You can close this window.")
    assert headers_of(result)["Set-Cookie"] == CLEARED and not live(session)


def test_an_expired_hint_still_counts(clock: ManualClock, browser: Browser) -> None:
    session = signed_in(browser)
    token = hint(session)
    clock.advance(3600)  # the ID token expired after 900 s; the session is still alive
    assert logout(browser, [("id_token_hint", token)])["statusCode"] == 200 and not live(session)


@pytest.mark.parametrize(("params", "detail"), [
    ([("client_id", "demo-web"), ("post_logout_redirect_uri", "http://127.0.0.1:8765/elsewhere")],
     "The post_logout_redirect_uri is not registered for this client."),
    ([("post_logout_redirect_uri", BACK)],
     "post_logout_redirect_uri needs client_id or id_token_hint to say which application it belongs to."),
    ([("id_token_hint", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")],
     "The id_token_hint is not an ID token this server issued."),
    ([("client_id", "demo-spa"), ("id_token_hint", "HINT")], "The client_id is not the audience of the id_token_hint."),
    ([("state", "a"), ("state", "b")], "The state parameter is repeated."),
    ([("%zz", "%")], "The form body is not valid application/x-www-form-urlencoded."),
])
def test_a_request_that_fails_its_checks_is_a_page_and_ends_nothing(clock: ManualClock, browser: Browser,
                                                                     params: list[tuple[str, str]],
                                                                     detail: str) -> None:
    session = signed_in(browser)
    params = [(k, hint(session) if v == "HINT" else v) for k, v in params]
    if params[0][0] == "%zz":  # only a POSTed body can carry an undecodable name
        request = HttpRequest("POST", "/oauth/logout", "", [("Host", "127.0.0.1:3000"), ("Accept", "text/html"),
                                                            ("Cookie", browser.cookie or ""),
                                                            ("Content-Type", "application/x-www-form-urlencoded")],
                              b"%zz=%&=&authgate-check=%")
        result = browser.invoke("authorize", build_event(request, resource="/oauth/logout", path_params=None))
        assert_page_error(result, detail)
        assert live(session)
        return
    assert_page_error(logout(browser, params), detail)
    assert live(session)


def test_a_tampered_hint_is_refused(clock: ManualClock, browser: Browser) -> None:
    session = signed_in(browser)
    head, _, tail = hint(session).split(".")
    forged = hint(session, sub="usr_someone0else000000001").split(".")[1]
    assert_page_error(logout(browser, [("id_token_hint", f"{head}.{forged}.{tail}")]),
                      "The id_token_hint is not an ID token this server issued.")


def test_a_hint_of_another_user_asks_for_confirmation(clock: ManualClock, browser: Browser) -> None:
    session = signed_in(browser)
    page = page_of(logout(browser, [("id_token_hint", hint(sub="usr_someone0else000000001"))]))
    assert page.status == 200 and page.text().startswith("Sign out?") and live(session)


def test_without_a_session_there_is_nothing_to_end(clock: ManualClock, browser: Browser) -> None:
    result = logout(browser, [("client_id", "demo-web"), ("post_logout_redirect_uri", BACK)])
    assert result["statusCode"] == 302 and headers_of(result)["Location"] == BACK


@pytest.mark.parametrize(("scope", "survives"), [("openid charges:read", False),
                                                 ("openid offline_access charges:read", True)])
def test_sign_out_revokes_the_sessions_grants_but_offline_access_ones(clock: ManualClock, browser: Browser,
                                                                      scope: str, survives: bool) -> None:
    """OpenID Connect Core 11: refresh tokens of the session end with it, unless offline_access was granted."""
    from authgate.stores.consents import ConsentStore
    from tests.functional.token_support import TokenClient, body_of

    tokens = TokenClient(browser.invoke)
    session = signed_in(browser)
    ConsentStore().remember("demo", ALICE, "demo-web", tuple(scope.split()), None)
    code = redirect_of(browser.get(web_params(scope=scope))).one("code")
    issued = body_of(tokens.exchange(code))
    logout(browser, [("id_token_hint", hint(session))])
    result = tokens.refresh(issued["refresh_token"])
    if survives:
        assert result["statusCode"] == 200
    else:
        assert (result["statusCode"], body_of(result)["error_description"]) == (
            400, "The refresh token has been revoked.")


def test_a_self_registered_client_is_never_followed_without_a_session(clock: ManualClock, browser: Browser,
                                                                     self_registered: str) -> None:
    """Anyone could register ELSEWHERE and link here: this was a 302 to it, no session, no click (an open redirect)."""
    result = logout(browser, [("client_id", self_registered), ("post_logout_redirect_uri", ELSEWHERE),
                              ("state", "s-9")])
    assert_offered(result, f"{ELSEWHERE}?state=s-9")


def test_a_self_registered_clients_own_id_token_is_no_pass(clock: ManualClock, browser: Browser,
                                                           self_registered: str) -> None:
    """Whoever registered the client can sign in to it and send their own ID token as the hint."""
    theirs = hint(sub="usr_someone0else000000001", client_id=self_registered)
    assert_offered(logout(browser, [("id_token_hint", theirs), ("post_logout_redirect_uri", ELSEWHERE)]), ELSEWHERE)
    session = signed_in(browser)  # someone else's browser: they are asked first, and still not sent there
    page = page_of(logout(browser, [("id_token_hint", theirs), ("post_logout_redirect_uri", ELSEWHERE)]))
    assert page.text().startswith("Sign out? CLI Agent asks to sign you out of this server.") and live(session)
    result = logout(browser, [*page.hidden().items(), ("confirm", "yes")], method="POST")
    assert_offered(result, ELSEWHERE)
    assert not live(session)


def test_a_self_registered_client_is_followed_with_a_hint_of_the_session_it_ends(
        clock: ManualClock, browser: Browser, self_registered: str) -> None:
    session = signed_in(browser)
    result = logout(browser, [("id_token_hint", hint(session, client_id=self_registered)),
                              ("post_logout_redirect_uri", ELSEWHERE), ("state", "s-3")])
    assert (result["statusCode"], result["body"]) == (302, "")
    assert without_request_id(result) == {"Location": f"{ELSEWHERE}?state=s-3", "Cache-Control": "no-store",
                                          "Pragma": "no-cache", "Referrer-Policy": "no-referrer",
                                          "Set-Cookie": CLEARED}
    assert not live(session)
