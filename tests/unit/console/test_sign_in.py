"""console.sign_in: the redirect to the stack's authorization endpoint (a fresh state, nonce and S256 verifier sealed in
this browser's cookie) and the callback's checks in order: the cookie, state, iss, the endpoint's error, the code's
exchange (a stand-in token endpoint over HTTP), the ID token (issuer, audience, nonce), UserInfo's sub, the operator;
then the session and the console page the sign-in began at, never another site's."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from authgate import base64url
from authgate.clock import ManualClock
from authgate.console.sign_in import callback, start
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from tests.functional.console_support import OLIVIA_ID, console_event
from tests.unit.console.endpoint_support import Endpoints, endpoints

CLEARED = "authgate_console_sign_in=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"
AGAIN = " Open the console again to sign in."


@pytest.fixture
def stack(keys: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoints]:
    """The stack's issuer a stand-in's URL (its token and UserInfo endpoints); olivia an operator of it."""
    from authgate import caches
    from authgate.stores.users import UserStore

    with endpoints() as stand_in:
        monkeypatch.setenv("AUTHGATE_ISSUER", stand_in.url)
        caches.reset()
        UserStore().put_hash("operators", "olivia", "not-a-hash", user_id=OLIVIA_ID)
        yield stand_in


def _started(back: str = "/console/people?tenant=demo") -> tuple[Response, dict[str, Any], str]:
    """A sign-in started at `back`: the redirect, the secrets its cookie seals, and the Cookie header carrying it."""
    from authgate import sealing
    from authgate.console import sign_in

    response = start(Request.from_event(console_event("GET", "/console")), back)
    (set_cookie,) = response.multi_headers["Set-Cookie"]
    value = set_cookie.split(";", 1)[0].removeprefix("authgate_console_sign_in=")
    pending = json.loads(sealing.unseal(sign_in._key(), value, ("console-sign-in",)))
    return response, pending, f"authgate_console_sign_in={value}"


def _callback(query: dict[str, str], cookie: str | None) -> Response:
    return callback(Request.from_event(console_event("GET", "/console/callback", urlencode(query), cookie=cookie)))


def _refused(query: dict[str, str], cookie: str | None) -> ApiError:
    with pytest.raises(ApiError) as refused:
        _callback(query, cookie)
    return refused.value


def _answers(stack: Endpoints, pending: dict[str, Any], clock: ManualClock, *, audience: str = "authgate-console",
             issuer: str = "", userinfo: dict[str, str] | None = None) -> None:
    """The token endpoint answers an ID token the stack signs for this sign-in; UserInfo names olivia."""
    from authgate.oauth.token.id_token import issue_id_token
    from authgate.single_use.authentication import Authentication

    token = issue_id_token(issuer=issuer or stack.url, client_id=audience, access_token="at-1",
                           nonce=pending["nonce"], authentication=Authentication(
                               OLIVIA_ID, int(clock()) - 60, "mfa", ("pwd", "otp", "mfa"), "sid-1"))
    stack.answer("/oauth/token", 200, {"id_token": token, "access_token": "at-1", "token_type": "Bearer"})
    stack.answer("/oauth/userinfo", 200, userinfo or {"sub": OLIVIA_ID, "preferred_username": "olivia"})


def test_the_redirect_asks_for_mfa_with_a_fresh_state_nonce_and_s256_challenge(stack: Endpoints) -> None:
    response, pending, _ = _started()
    assert (response.status, response.body) == (302, "")
    location = urlsplit(response.headers.pop("Location"))
    assert response.headers == {"Cache-Control": "no-store", "Pragma": "no-cache", "Referrer-Policy": "no-referrer"}
    assert response.multi_headers["Set-Cookie"][0].endswith("; HttpOnly; SameSite=Lax; Path=/; Max-Age=600")
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{stack.url}/oauth/authorize"
    challenge = base64url.encode(hashlib.sha256(pending["verifier"].encode()).digest())
    assert parse_qs(location.query) == {
        "response_type": ["code"], "client_id": ["authgate-console"], "redirect_uri": [f"{stack.url}/console/callback"],
        "scope": ["openid profile"], "state": [pending["state"]], "nonce": [pending["nonce"]],
        "code_challenge": [challenge], "code_challenge_method": ["S256"], "acr_values": ["mfa"], "max_age": ["43200"]}
    assert pending["back"] == "/console/people?tenant=demo"
    _, again, _ = _started()
    assert {name: again[name] != pending[name] for name in ("state", "nonce", "verifier")} == {
        "state": True, "nonce": True, "verifier": True}


def test_a_callback_without_a_live_sign_in_of_this_browser_is_refused(stack: Endpoints, clock: ManualClock) -> None:
    _, pending, cookie = _started()
    query = {"code": "c", "state": pending["state"]}
    forged = cookie[:-4] + ("AAAA" if not cookie.endswith("AAAA") else "BBBB")
    for sent in (None, forged, "authgate_console_sign_in=v1.bm90LXNlYWxlZA"):
        refused = _refused(query, sent)
        assert (refused.code, refused.status, refused.detail, refused.internal, refused.headers) == (
            "console_sign_in_failed", 400, "This browser started no sign-in to the console, or started it more than "
            "10 minutes ago." + AGAIN, "no pending sign-in", {"Set-Cookie": CLEARED})
    clock.advance(600)
    assert _refused(query, cookie).internal == "no pending sign-in"
    assert stack.sent == []


@pytest.mark.parametrize(("query", "detail", "internal"), [
    ({"code": "c", "state": "another"}, "The answer is not for the sign-in this browser started.", "state mismatch"),
    ({"code": "c"}, "The answer is not for the sign-in this browser started.", "state mismatch"),
    ({"code": "c", "state": "{state}", "iss": "https://evil.example"}, "The answer comes from another issuer.",
     "iss mismatch (RFC 9207)"),
    ({"state": "{state}", "error": "access_denied"}, "The sign-in did not complete.", "error access_denied"),
    ({"state": "{state}"}, "The sign-in did not complete.", "error no code"),
    ({"code": "", "state": "{state}"}, "The sign-in did not complete.", "error no code"),
], ids=["state", "no-state", "iss", "error", "no-code", "empty-code"])
def test_an_answer_not_for_this_sign_in_is_refused_before_the_code_is_spent(
        stack: Endpoints, query: dict[str, str], detail: str, internal: str) -> None:
    _, pending, cookie = _started()
    refused = _refused({k: v.format(state=pending["state"]) for k, v in query.items()}, cookie)
    assert (refused.code, refused.detail, refused.internal, refused.headers) == (
        "console_sign_in_failed", detail + AGAIN, internal, {"Set-Cookie": CLEARED})
    assert stack.sent == []


def test_a_sign_in_that_holds_opens_a_session_and_goes_back_to_the_page(stack: Endpoints, clock: ManualClock) -> None:
    from authgate.console.session import signed_in

    _, pending, cookie = _started()
    _answers(stack, pending, clock)
    answer = _callback({"code": "the-code", "state": pending["state"], "iss": stack.url}, cookie)
    assert (answer.status, answer.body, answer.headers) == (302, "", {
        "Location": f"{stack.url}/console/people?tenant=demo", "Cache-Control": "no-store", "Pragma": "no-cache",
        "Referrer-Policy": "no-referrer"})
    cleared, session_cookie = answer.multi_headers["Set-Cookie"]
    assert cleared == CLEARED
    assert session_cookie.startswith("authgate_console=b2xpdmlh.")
    assert session_cookie.endswith(f"; HttpOnly; SameSite=Lax; Path=/; Max-Age={43200 - 60}")
    (token_call, userinfo_call) = stack.sent
    assert parse_qs(token_call[3].decode())["code_verifier"] == [pending["verifier"]]
    assert userinfo_call[2]["authorization"] == "Bearer at-1"
    opened = signed_in(Request.from_event(console_event("GET", "/console", cookie=session_cookie.split(";")[0])))
    assert opened is not None
    assert (opened.operator.username, opened.session.sid, opened.session.auth_time) == (
        "olivia", "sid-1", int(clock()) - 60)


@pytest.mark.parametrize(("back", "lands"), [
    ("/console", "/console"),
    ("/console?x=1", "/console?x=1"),
    ("/console/person?tenant=demo&username=bob", "/console/person?tenant=demo&username=bob"),
    ("//evil.example/console/", "/console"),
    ("https://evil.example/console", "/console"),
    ("/console//evil.example", "/console"),
    ("/console/\\evil.example", "/console"),
    ("/consoles", "/console"),
    ("/oauth/authorize", "/console"),
])
def test_the_browser_goes_back_only_to_a_console_page(stack: Endpoints, clock: ManualClock, back: str,
                                                      lands: str) -> None:
    _, pending, cookie = _started(back)
    _answers(stack, pending, clock)
    answer = _callback({"code": "the-code", "state": pending["state"]}, cookie)
    assert answer.headers["Location"] == stack.url + lands


@pytest.mark.parametrize(("given", "internal"), [
    ({"audience": "demo-web"}, "is not 'authgate-console'"),
    ({"issuer": "https://other.example"}, "iss 'https://other.example'"),
    ({"userinfo": {"sub": "usr_someone", "preferred_username": "olivia"}},
     "UserInfo's sub or preferred_username does not hold"),
    ({"userinfo": {"sub": OLIVIA_ID}}, "UserInfo's sub or preferred_username does not hold"),
], ids=["audience", "issuer", "userinfo-sub", "no-username"])
def test_an_answer_that_does_not_hold_is_refused(stack: Endpoints, clock: ManualClock, given: dict[str, Any],
                                                  internal: str) -> None:
    from authgate.stores.console_sessions import ConsoleSessionStore

    _, pending, cookie = _started()
    _answers(stack, pending, clock, **given)
    refused = _refused({"code": "the-code", "state": pending["state"]}, cookie)
    assert (refused.code, refused.detail, refused.headers) == (
        "console_sign_in_failed", "The sign-in's answer did not hold." + AGAIN, {"Set-Cookie": CLEARED})
    assert internal in refused.internal
    assert ConsoleSessionStore().db.scan(TableName=ConsoleSessionStore().table)["Count"] == 0


def test_a_person_who_is_no_operator_opens_no_session(stack: Endpoints, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    UserStore().set_disabled("operators", "olivia", True)
    _, pending, cookie = _started()
    _answers(stack, pending, clock)
    refused = _refused({"code": "the-code", "state": pending["state"]}, cookie)
    assert (refused.code, refused.detail, refused.internal) == (
        "console_sign_in_failed", "The person who signed in is no operator here." + AGAIN, "no operator 'olivia'")
    UserStore().delete("operators", "olivia")
    UserStore().put_hash("operators", "olivia", "not-a-hash", user_id="usr_another_olivia")
    assert _refused({"code": "the-code", "state": pending["state"]}, cookie).internal == "no operator 'olivia'"


def test_a_token_endpoint_that_does_not_answer_is_a_503(stack: Endpoints) -> None:
    _, pending, cookie = _started()
    stack.answer("/oauth/token", 502, b"")
    refused = _refused({"code": "the-code", "state": pending["state"]}, cookie)
    assert (refused.code, refused.status, refused.detail, refused.internal) == (
        "service_unavailable", 503, "The stack's own token endpoint did not answer: try again.",
        f"{stack.url}/oauth/token: 502")
