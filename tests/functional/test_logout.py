"""GET and POST /oauth/logout through the authorize function (OpenID Connect RP-Initiated Logout 1.0)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate_cli.local.events import HttpRequest, build_event
from tests.functional.authorize_support import Browser, headers_of, page_of, redirect_of, web_params
from tests.functional.logout_support import ALICE, BACK, CLEARED, hint, logout, signed_in


def live(session: Any) -> bool:
    from authgate.stores.sessions import SessionStore

    return any(s.sid == session.sid for s in SessionStore().of_user("demo", ALICE))


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
