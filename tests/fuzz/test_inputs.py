"""Hypothesis properties, in-process through the handlers: token-endpoint bodies, authorize query
strings, and the headers clients send (Authorization, Accept, Content-Type, Idempotency-Key,
traceparent, x-request-id). Every response is a status the OpenAPI document lists for that
operation, never a 5xx, and every failure passes read_error with no defect (the `invoke`
fixture checks that on every result)."""

from __future__ import annotations

import json
import os
import uuid
from typing import Any
from urllib.parse import urlencode

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.demo import CHALLENGE, VERIFIER, WEB_REDIRECT
from tests.functional.token_support import basic
from tests.fuzz.handler_calls import Invoke, assert_documented, bearer, call

# `make fuzz` raises the count (AUTHGATE_FUZZ_EXAMPLES); `make test` runs 100.
FUZZ = settings(max_examples=int(os.environ.get("AUTHGATE_FUZZ_EXAMPLES", "100")), deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# ---------------------------------------------------------------- strategies
# Header values as a client may send them: visible ASCII, spaces, latin-1 bytes, and near misses.
HEADER_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=80)
FORM_NAMES = ["grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "scope", "client_id",
              "client_secret", "username", "password", "token", "token_type_hint"]
FORM_VALUES = st.one_of(
    st.sampled_from(["authorization_code", "refresh_token", "client_credentials", "password", "demo-web",
                     "demo-service", "demo-spa", "demo-service-secret", WEB_REDIRECT, VERIFIER,
                     "charges:read", "charges:refund", "access_token", ""]),
    st.text(max_size=60),
)
FORM = st.lists(st.tuples(st.one_of(st.sampled_from(FORM_NAMES), st.text(max_size=12)), FORM_VALUES), max_size=8)
AUTHORIZATION = st.one_of(
    st.none(),
    st.just(basic("demo-service", "demo-service-secret")),
    st.builds(lambda s: "Basic " + s, HEADER_TEXT),
    st.builds(lambda s: "Bearer " + s, HEADER_TEXT),
    HEADER_TEXT,
)
CONTENT_TYPE = st.one_of(st.none(), st.sampled_from([
    "application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=UTF-8",
    "application/json", "application/vnd.api+json", "application/vnd.api+json; ext=x", "text/plain",
    "multipart/form-data; boundary=x", ""]), HEADER_TEXT)
ACCEPT = st.one_of(st.none(), st.sampled_from([
    "*/*", "application/json", "application/problem+json", "application/vnd.api+json",
    "application/vnd.api+json; ext=x", "text/html", "application/xml", "application/*;q=0", ""]), HEADER_TEXT)
TRACEPARENT = st.one_of(st.none(), st.just("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                        HEADER_TEXT)
REQUEST_ID = st.one_of(st.none(), st.just(str(uuid.uuid4())), HEADER_TEXT)
IDEMPOTENCY_KEY = st.one_of(st.none(), st.just("key-1"), HEADER_TEXT, st.text(min_size=250, max_size=300))


def headers_from(**values: str | None) -> list[tuple[str, str]]:
    return [(name.replace("_", "-"), value) for name, value in values.items() if value is not None]


# ---------------------------------------------------------------- token endpoint bodies
@FUZZ
@given(fields=FORM, auth=AUTHORIZATION, content_type=CONTENT_TYPE)
def test_token_endpoint_bodies(demo: None, invoke: Invoke, fields: list[tuple[str, str]], auth: str | None,
                               content_type: str | None) -> None:
    body = urlencode(fields).encode()
    result = call(invoke, "token", "POST", "/oauth/token", body=body,
                  headers=headers_from(Authorization=auth, Content_Type=content_type))
    assert_documented(result, "POST", "/oauth/token")
    if result["statusCode"] == 200:
        assert set(json.loads(result["body"])) <= {"access_token", "token_type", "expires_in", "scope",
                                                   "refresh_token"}


@FUZZ
@given(raw=st.binary(max_size=300), path=st.sampled_from(["/oauth/token", "/oauth/revoke", "/oauth/introspect"]))
def test_oauth_routes_take_any_bytes(demo: None, invoke: Invoke, raw: bytes, path: str) -> None:
    result = call(invoke, "token", "POST", path, body=raw,
                  headers=[("Content-Type", "application/x-www-form-urlencoded"),
                           ("Authorization", basic("demo-service", "demo-service-secret"))])
    assert_documented(result, "POST", path)


# ---------------------------------------------------------------- authorize query strings
@FUZZ
@given(pairs=st.lists(st.tuples(st.sampled_from(["response_type", "client_id", "redirect_uri", "scope", "state",
                                                 "code_challenge", "code_challenge_method"]),
                                st.one_of(st.sampled_from(["code", "demo-web", WEB_REDIRECT, "S256", CHALLENGE,
                                                           "charges:read"]), st.text(max_size=40))), max_size=9),
       raw_tail=st.text(alphabet=st.characters(codec="ascii"), max_size=30))
def test_authorize_query_strings(demo: None, invoke: Invoke, pairs: list[tuple[str, str]], raw_tail: str) -> None:
    result = call(invoke, "authorize", "GET", "/oauth/authorize", query=urlencode(pairs) + raw_tail,
                  headers=[("Accept", "text/html")])
    assert_documented(result, "GET", "/oauth/authorize")
    location = (result.get("multiValueHeaders") or {}).get("Location", [""])[0]
    assert not location or location.startswith(("http://127.0.0.1:8765/callback?",
                                                "http://127.0.0.1:8765/spa/callback?",
                                                "http://127.0.0.1:8765/partner/callback?")), location


# ---------------------------------------------------------------- client headers on the API
@FUZZ
@given(auth=st.one_of(st.just("valid"), AUTHORIZATION), accept=ACCEPT, content_type=CONTENT_TYPE,
       key=IDEMPOTENCY_KEY, traceparent=TRACEPARENT, request_id=REQUEST_ID,
       body=st.one_of(st.just({"amount": 100, "currency": "usd"}), st.dictionaries(st.text(max_size=8),
                      st.one_of(st.integers(), st.text(max_size=8), st.none()), max_size=3)))
def test_charges_headers(demo: None, invoke: Invoke, auth: str | None, accept: str | None,
                         content_type: str | None, key: str | None, traceparent: str | None,
                         request_id: str | None, body: dict[str, Any]) -> None:
    authorization = f"Bearer {bearer()}" if auth == "valid" else auth
    headers = headers_from(Authorization=authorization, Accept=accept, Content_Type=content_type,
                           Idempotency_Key=key, traceparent=traceparent, x_request_id=request_id)
    result = call(invoke, "charges", "POST", "/charges", headers=headers, body=json.dumps(body).encode())
    assert_documented(result, "POST", "/charges")
    echoed = result["multiValueHeaders"]["x-request-id"][0]
    assert echoed and "\n" not in echoed and "\r" not in echoed


@FUZZ
@given(auth=AUTHORIZATION, accept=ACCEPT, traceparent=TRACEPARENT, request_id=REQUEST_ID,
       route=st.sampled_from([("token", "POST", "/oauth/introspect"), ("jwks", "GET", "/.well-known/jwks.json"),
                              ("jwks", "GET", "/openapi.json"), ("charges", "GET", "/charges")]))
def test_headers_on_other_routes(demo: None, invoke: Invoke, auth: str | None, accept: str | None,
                                 traceparent: str | None, request_id: str | None, route: tuple[str, str, str]) -> None:
    function, method, path = route
    headers = headers_from(Authorization=auth, Accept=accept, traceparent=traceparent, x_request_id=request_id)
    if method == "POST":
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
    result = call(invoke, function, method, path, headers=headers, body=b"token=abc" if method == "POST" else b"")
    assert_documented(result, method, path)
