"""A fuzz target for every parser an unauthenticated client reaches, through the real handlers.

Targets: JWS segments (a bearer token at /charges), the DPoP header (token endpoint and
resource), client assertions, JSON bodies, pagination cursors and the sign-in form's cookie and
state (form bodies and Authorization headers are tests/fuzz/test_inputs.py's). One invariant:
never a 5xx, always a status the OpenAPI document lists, and every failure passes the contract
check of the `invoke` fixture (read_error: a documented shape, no defect).

`make test` runs AUTHGATE_FUZZ_EXAMPLES (default 15) examples per target, seconds in all, and
replays the kept corpus (tests/fuzz/corpus/<target>.jsonl) input by input. `make fuzz` runs
many more (AUTHGATE_FUZZ_EXAMPLES=2000) with AUTHGATE_FUZZ_RECORD=1: an input whose outcome
(status and error code) the target's corpus has not seen yet, or one that fails, is appended
to the corpus, which is committed and so replayed from then on (docs/operations.md).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.demo import ISSUER, SECRETS
from tests.functional.token_support import basic
from tests.fuzz.handler_calls import Invoke, assert_documented, bearer, call

CORPUS = Path(__file__).with_name("corpus")
EXAMPLES = int(os.environ.get("AUTHGATE_FUZZ_EXAMPLES", "15"))
RECORD = os.environ.get("AUTHGATE_FUZZ_RECORD") == "1"
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# --------------------------------------------------------------------------- the corpus
def corpus(target: str) -> list[dict[str, Any]]:
    path = CORPUS / f"{target}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


_SEEN: dict[str, set[tuple[int, str]]] = {}


def outcome(result: dict[str, Any]) -> tuple[int, str]:
    """(status, error code) of a response: what distinguishes one corpus entry from another."""
    try:
        body = json.loads(result.get("body") or "{}")
    except ValueError:
        body = {}
    code = ""
    if isinstance(body, dict):
        code = str(body.get("code") or body.get("error") or "")
        errors = body.get("errors")
        if not code and isinstance(errors, list) and errors and isinstance(errors[0], dict):
            code = str(errors[0].get("code") or "")
    return int(result["statusCode"]), code


def keep(target: str, case: dict[str, Any], check: Callable[[], dict[str, Any]], method: str, path: str) -> None:
    """Run `check`, assert the invariant; under `make fuzz` keep a new outcome (or a failure) in the corpus."""
    failed = True
    try:
        result = check()
        assert_documented(result, method, path)
        failed = False
    finally:
        if RECORD:
            seen = _SEEN.setdefault(target, {(int(e["status"]), str(e["code"])) for e in corpus(target)})
            found = (500, "failure") if failed else outcome(result)
            if found not in seen:
                seen.add(found)
                CORPUS.mkdir(exist_ok=True)
                with (CORPUS / f"{target}.jsonl").open("a", encoding="utf-8") as f:
                    f.write(json.dumps({**case, "status": found[0], "code": found[1]}, ensure_ascii=True) + "\n")


# --------------------------------------------------------------------------- strategies
JSON_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                     st.text(max_size=12)),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                       max_size=3), max_leaves=8)
# Texts a hostile segment may decode to: JSON objects with the names that matter, and the shapes
# that broke parsers elsewhere (nesting, NaN, huge numbers, duplicates, escapes, other encodings).
NAMES = ["alg", "typ", "kid", "jwk", "crit", "jku", "x5u", "b64", "iss", "sub", "aud", "exp", "iat", "nbf", "jti",
         "htm", "htu", "ath", "nonce", "cnf", "scope", "client_id", "tenant"]
OBJECTS = st.dictionaries(st.sampled_from(NAMES), st.one_of(JSON_VALUES, st.sampled_from(
    ["RS256", "ES256", "EdDSA", "PS256", "none", "HS256", "at+jwt", "dpop+jwt", "DPoP+JWT", ISSUER, f"{ISSUER}/charges",
     "POST", "GET", f"{ISSUER}/oauth/token"])), max_size=8).map(lambda d: json.dumps(d))
ODD_TEXTS = st.sampled_from([
    "[" * 2000 + "]" * 2000, '{"a":' + "[" * 1100 + "]" * 1100 + "}", '{"exp": NaN}', '{"exp": Infinity}',
    '{"exp": 1e400}', '{"exp": ' + "9" * 5000 + "}", '{"alg":"ES256","alg":"none"}', '{"jti":"\\ud800"}',
    '{"ath":"\u00e9\u00e9"}', '{"nonce":"\u00e9"}', "\ufeff{}", "null", "[]", '"x"', "{", "",
    '{"typ":"dpop+jwt","alg":"EdDSA","jwk":{"kty":"OKP","crv":"Ed25519","x":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}',
    '{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}}',
    '{"typ":"dpop+jwt","alg":"RS256","jwk":{"kty":"RSA","n":"AA","e":"Aw"}}',
])
SEGMENT_TEXT = st.one_of(OBJECTS, ODD_TEXTS, st.text(max_size=40))


@st.composite
def segments(draw: st.DrawFn) -> str:
    """One JWS segment: base64url of a hostile text (UTF-8 or another encoding), or raw characters."""
    text = draw(SEGMENT_TEXT)
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-16", "latin-1"]))
    try:
        encoded = b64(text.encode(encoding, "surrogatepass"))
    except UnicodeEncodeError:
        encoded = b64(text.encode("utf-8", "surrogatepass"))
    return draw(st.one_of(st.just(encoded), st.just(encoded + "=="),
                          st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ .",
                                  max_size=30)))


COMPACT = st.builds(lambda h, p, s: f"{h}.{p}.{s}", segments(), segments(),
                    st.one_of(st.binary(max_size=70).map(b64), st.text(max_size=10)))
TOKENS = st.one_of(COMPACT, st.text(max_size=60), st.builds(lambda t, n: ".".join([t] * n), segments(),
                                                             st.integers(0, 5)))


def replay(target: str) -> list[Any]:
    return [pytest.param(entry, id=f"{target}-{i}") for i, entry in enumerate(corpus(target))]


# --------------------------------------------------------------------------- JWS segments: bearer tokens
def bearer_check(invoke: Invoke, token: str, scheme: str = "Bearer") -> dict[str, Any]:
    return call(invoke, "charges", "GET", "/charges", headers=[("Authorization", f"{scheme} {token}")])


@FUZZ
@given(token=TOKENS, scheme=st.sampled_from(["Bearer", "DPoP"]))
def test_jws_segments_in_a_bearer_token(demo: None, invoke: Invoke, token: str, scheme: str) -> None:
    keep("bearer_token", {"token": token, "scheme": scheme},
         lambda: bearer_check(invoke, token, scheme), "GET", "/charges")


@pytest.mark.parametrize("entry", replay("bearer_token"))
def test_bearer_token_corpus(demo: None, invoke: Invoke, entry: dict[str, Any]) -> None:
    assert_documented(bearer_check(invoke, entry["token"], entry["scheme"]), "GET", "/charges")


# --------------------------------------------------------------------------- the DPoP header
def dpop_at_token(invoke: Invoke, proof: str) -> dict[str, Any]:
    return call(invoke, "token", "POST", "/oauth/token", body=b"grant_type=client_credentials",
                headers=[("Content-Type", "application/x-www-form-urlencoded"),
                         ("Authorization", basic("demo-service", SECRETS["demo-service"])), ("DPoP", proof)])


def dpop_at_resource(invoke: Invoke, proof: str) -> dict[str, Any]:
    from tests.dpop_support import DpopKey

    key = DpopKey()
    issued = dpop_at_token(invoke, key.proof("POST", f"{ISSUER}/oauth/token"))
    token = json.loads(issued["body"])["access_token"]
    return call(invoke, "charges", "GET", "/charges", headers=[("Authorization", f"DPoP {token}"), ("DPoP", proof)])


@FUZZ
@given(proof=TOKENS, where=st.sampled_from(["token", "resource"]))
def test_the_dpop_header(demo: None, invoke: Invoke, proof: str, where: str) -> None:
    check = dpop_at_token if where == "token" else dpop_at_resource
    method, path = ("POST", "/oauth/token") if where == "token" else ("GET", "/charges")
    keep("dpop_header", {"proof": proof, "where": where}, lambda: check(invoke, proof), method, path)


@pytest.mark.parametrize("entry", replay("dpop_header"))
def test_dpop_header_corpus(demo: None, invoke: Invoke, entry: dict[str, Any]) -> None:
    if entry["where"] == "token":
        assert_documented(dpop_at_token(invoke, entry["proof"]), "POST", "/oauth/token")
    else:
        assert_documented(dpop_at_resource(invoke, entry["proof"]), "GET", "/charges")


# --------------------------------------------------------------------------- client assertions
def assertion_check(invoke: Invoke, assertion: str, client_id: str | None) -> dict[str, Any]:
    from urllib.parse import urlencode

    fields = [("grant_type", "client_credentials"),
              ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
              ("client_assertion", assertion)] + ([("client_id", client_id)] if client_id else [])
    return call(invoke, "token", "POST", "/oauth/token", body=urlencode(fields).encode(),
                headers=[("Content-Type", "application/x-www-form-urlencoded")])


@FUZZ
@given(assertion=TOKENS, client_id=st.sampled_from([None, "demo-fapi", "demo-service", "nobody"]))
def test_client_assertions(demo: None, invoke: Invoke, assertion: str, client_id: str | None) -> None:
    keep("client_assertion", {"assertion": assertion, "client_id": client_id},
         lambda: assertion_check(invoke, assertion, client_id), "POST", "/oauth/token")


@pytest.mark.parametrize("entry", replay("client_assertion"))
def test_client_assertion_corpus(demo: None, invoke: Invoke, entry: dict[str, Any]) -> None:
    assert_documented(assertion_check(invoke, entry["assertion"], entry["client_id"]), "POST", "/oauth/token")


# --------------------------------------------------------------------------- JSON bodies
JSON_BODIES = st.one_of(
    ODD_TEXTS,
    JSON_VALUES.map(json.dumps),
    st.dictionaries(st.sampled_from(["amount", "currency", "description", "customer", "metadata", "data", "x"]),
                    JSON_VALUES, max_size=4).map(json.dumps),
    st.text(max_size=60),
)


def json_body_check(invoke: Invoke, body: str, encoding: str) -> dict[str, Any]:
    return call(invoke, "charges", "POST", "/charges", body=body.encode(encoding, "surrogatepass"),
                headers=[("Authorization", f"Bearer {bearer()}"), ("Content-Type", "application/json")])


@FUZZ
@given(body=JSON_BODIES, encoding=st.sampled_from(["utf-8", "utf-8", "utf-16", "latin-1"]))
def test_json_bodies(demo: None, invoke: Invoke, body: str, encoding: str) -> None:
    try:
        body.encode(encoding, "surrogatepass")
    except UnicodeEncodeError:
        encoding = "utf-8"
    keep("json_body", {"body": body, "encoding": encoding}, lambda: json_body_check(invoke, body, encoding),
         "POST", "/charges")


@pytest.mark.parametrize("entry", replay("json_body"))
def test_json_body_corpus(demo: None, invoke: Invoke, entry: dict[str, Any]) -> None:
    assert_documented(json_body_check(invoke, entry["body"], entry["encoding"]), "POST", "/charges")


# --------------------------------------------------------------------------- cursors
CURSORS = st.one_of(st.builds(lambda a, b: f"{a}.{b}", segments(), st.binary(max_size=14).map(b64)),
                    st.text(max_size=40), st.text(alphabet="ABCDEFabcdef0123456789-_.=", max_size=220))


def cursor_check(invoke: Invoke, cursor: str) -> dict[str, Any]:
    from urllib.parse import urlencode

    return call(invoke, "charges", "GET", "/charges", query=urlencode({"cursor": cursor}),
                headers=[("Authorization", f"Bearer {bearer()}")])


@FUZZ
@given(cursor=CURSORS)
def test_cursors(demo: None, invoke: Invoke, cursor: str) -> None:
    keep("cursor", {"cursor": cursor}, lambda: cursor_check(invoke, cursor), "GET", "/charges")


@pytest.mark.parametrize("entry", replay("cursor"))
def test_cursor_corpus(demo: None, invoke: Invoke, entry: dict[str, Any]) -> None:
    assert_documented(cursor_check(invoke, entry["cursor"]), "GET", "/charges")


# --------------------------------------------------------------------------- sign-in form: cookies and state
COOKIES = st.one_of(st.none(), st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=80),
                    st.builds(lambda v: f"__Host-authgate-binding={v}", st.text(max_size=40)),
                    st.builds(lambda v: f"authgate-binding={v}; other=1", st.text(max_size=40)))
FORM_STATE = st.one_of(st.text(max_size=40), st.builds(lambda a, b: f"{a}.{b}", segments(), st.text(max_size=20)))


def sign_in_check(invoke: Invoke, cookie: str | None, blob: str, csrf: str) -> dict[str, Any]:
    from urllib.parse import urlencode

    body = urlencode([("request_blob", blob), ("csrf", csrf), ("username", "alice"), ("password", "x"),
                      ("decision", "approve")]).encode()
    headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "text/html")]
    if cookie is not None:
        headers.append(("Cookie", cookie))
    return call(invoke, "authorize", "POST", "/oauth/authorize", body=body, headers=headers)


@pytest.fixture
def session_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()


@FUZZ
@given(cookie=COOKIES, blob=FORM_STATE, csrf=st.text(max_size=30))
def test_sign_in_cookies_and_state(demo: None, session_secret: None, invoke: Invoke,
                                   cookie: str | None, blob: str, csrf: str) -> None:
    keep("sign_in_form", {"cookie": cookie, "blob": blob, "csrf": csrf},
         lambda: sign_in_check(invoke, cookie, blob, csrf), "POST", "/oauth/authorize")


@pytest.mark.parametrize("entry", replay("sign_in_form"))
def test_sign_in_form_corpus(demo: None, session_secret: None, invoke: Invoke,
                             entry: dict[str, Any]) -> None:
    assert_documented(sign_in_check(invoke, entry["cookie"], entry["blob"], entry["csrf"]), "POST", "/oauth/authorize")
