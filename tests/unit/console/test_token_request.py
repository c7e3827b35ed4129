"""console.token_request: the code exchanged at the stack's token endpoint as the console's confidential client (PKCE,
client_secret_basic), the access token spent at UserInfo; a refusal is SignInRefused, no answer or a 5xx Unreachable,
a redirect is never followed and an answer is read to MAX_ANSWER bytes."""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from urllib.parse import parse_qs

import pytest

from authgate.console.id_token import SignInRefused
from authgate.console.token_request import MAX_ANSWER, Tokens, Unreachable, exchange, userinfo
from tests.unit.console.endpoint_support import Endpoints, endpoints

# A JSON answer of the tokens exactly MAX_ANSWER bytes long.
_TOKENS = b'{"access_token": "at-1", "id_token": "'
WHOLE = _TOKENS + b"x" * (MAX_ANSWER - len(_TOKENS) - 2) + b'"}'


@pytest.fixture
def stack(aws: None) -> Iterator[Endpoints]:
    with endpoints() as stand_in:
        yield stand_in


def test_a_code_is_exchanged_as_the_consoles_client_with_its_verifier(stack: Endpoints) -> None:
    from authgate.console.client import client_secret

    stack.answer("/oauth/token", 200, {"id_token": "h.c.s", "access_token": "at-1", "token_type": "Bearer"})
    assert exchange(stack.url, "the-code", "the-verifier") == Tokens("h.c.s", "at-1")
    ((method, path, headers, body),) = stack.sent
    assert (method, path, headers["content-type"], headers["accept"]) == (
        "POST", "/oauth/token", "application/x-www-form-urlencoded", "application/json")
    assert base64.b64decode(headers["authorization"].removeprefix("Basic ")).decode() == (
        f"authgate-console:{client_secret()}")
    assert parse_qs(body.decode()) == {"grant_type": ["authorization_code"], "code": ["the-code"],
                                       "redirect_uri": [stack.url + "/console/callback"],
                                       "code_verifier": ["the-verifier"]}


@pytest.mark.parametrize(("status", "answer", "reason"), [
    (400, {"error": "invalid_grant"}, "the token endpoint answered 400 invalid_grant"),
    (200, {"access_token": "at-1"}, "the token endpoint answered 200 None"),
    (200, {"id_token": "", "access_token": "at-1"}, "the token endpoint answered 200 None"),
    (200, {"id_token": "h.c.s", "access_token": 7}, "the token endpoint answered 200 None"),
    (401, {"error": "invalid_client" * 10}, "the token endpoint answered 401 " + ("invalid_client" * 10)[:60]),
])
def test_a_refused_or_incomplete_answer_refuses_the_sign_in(stack: Endpoints, status: int, answer: object,
                                                              reason: str) -> None:
    stack.answer("/oauth/token", status, answer)
    with pytest.raises(SignInRefused) as refused:
        exchange(stack.url, "the-code", "the-verifier")
    assert str(refused.value) == reason


@pytest.mark.parametrize(("answer", "what"), [
    (b"<html>no</html>", "without a JSON object"),
    (b"[1, 2]", "without a JSON object"),
    (WHOLE[:-2] + b"x" + WHOLE[-2:], "without a JSON object"),  # a byte longer than an answer may be
], ids=["html", "array", "too-long"])
def test_an_answer_that_is_no_json_object_refuses_the_sign_in(stack: Endpoints, answer: bytes, what: str) -> None:
    stack.answer("/oauth/token", 200, answer)
    with pytest.raises(SignInRefused) as refused:
        exchange(stack.url, "the-code", "the-verifier")
    assert str(refused.value) == f"{stack.url}/oauth/token answered 200 {what}"


def test_an_answer_of_max_answer_bytes_is_read_whole(stack: Endpoints) -> None:
    stack.answer("/oauth/token", 200, WHOLE)
    assert exchange(stack.url, "the-code", "the-verifier") == Tokens("x" * (MAX_ANSWER - len(_TOKENS) - 2), "at-1")


def test_a_redirect_is_not_followed(stack: Endpoints) -> None:
    stack.answer("/oauth/token", 302, b"", {"Location": "/elsewhere"})
    stack.answer("/elsewhere", 200, {"id_token": "h.c.s", "access_token": "at-1"})
    with pytest.raises(SignInRefused) as refused:
        exchange(stack.url, "the-code", "the-verifier")
    assert str(refused.value) == f"{stack.url}/oauth/token answered 302 without a JSON object"
    assert [path for _, path, _, _ in stack.sent] == ["/oauth/token"]


def test_a_5xx_or_no_answer_is_unreachable(stack: Endpoints) -> None:
    stack.answer("/oauth/token", 503, {"error": "temporarily_unavailable"})
    with pytest.raises(Unreachable) as busy:
        exchange(stack.url, "the-code", "the-verifier")
    assert str(busy.value) == f"{stack.url}/oauth/token: 503"
    with socket.socket() as bound:  # a port nothing listens on once it is closed
        bound.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{bound.getsockname()[1]}"
    with pytest.raises(Unreachable) as closed:
        userinfo(nowhere, "at-1")
    assert str(closed.value) == f"{nowhere}/oauth/userinfo: URLError"


def test_userinfo_is_read_with_the_access_token(stack: Endpoints) -> None:
    stack.answer("/oauth/userinfo", 200, {"sub": "usr_olivia", "preferred_username": "olivia"})
    assert userinfo(stack.url, "at-1") == {"sub": "usr_olivia", "preferred_username": "olivia"}
    ((method, path, headers, body),) = stack.sent
    assert (method, path, headers["authorization"], body) == ("GET", "/oauth/userinfo", "Bearer at-1", b"")
    stack.answer("/oauth/userinfo", 401, {"error": "invalid_token"})
    with pytest.raises(SignInRefused) as refused:
        userinfo(stack.url, "at-1")
    assert str(refused.value) == "the UserInfo endpoint answered 401"
