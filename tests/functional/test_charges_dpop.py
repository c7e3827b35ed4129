"""DPoP at the charges resource (RFC 9449 7) and server nonces (RFC 9449 8, 9), through the real handlers.

Tokens come from the token function with joserfc proofs; every failure is asserted whole
(status, headers with both challenges, body), and read in all four error shapes.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from authgate_cli.check import read_error
from tests.demo import ISSUER, SECRETS, Demo, body, headers
from tests.dpop_support import DpopKey
from tests.functional.token_support import TokenClient, basic, body_of, headers_of

TOKEN_URL = f"{ISSUER}/oauth/token"
CHARGES_URL = f"{ISSUER}/charges"
METADATA = f'resource_metadata="{ISSUER}/.well-known/oauth-protected-resource/charges"'
ALGS = 'algs="ES256 EdDSA RS256 PS256"'


def dpop_token(tokens: TokenClient, key: DpopKey, client_id: str = "demo-service",
               nonce: str | None = None) -> str:
    result = tokens.client_credentials(client_id, headers=[("DPoP", key.proof("POST", TOKEN_URL, nonce=nonce))])
    assert result["statusCode"] == 200, result
    return str(body_of(result)["access_token"])


def get(demo: Demo, invoke: Any, token: str, proofs: list[str], scheme: str = "DPoP",
        extra: dict[str, Any] | None = None) -> dict[str, Any]:
    hdrs: dict[str, Any] = {"Authorization": f"{scheme} {token}", **(extra or {})}
    if proofs:
        hdrs["DPoP"] = proofs
    return invoke("charges", demo.event("GET", headers=hdrs))


def dpop_challenge(error: str, description: str) -> str:
    return (f'DPoP {ALGS}, error="{error}", error_description="{description}", {METADATA}, '
            f'Bearer realm="api", {METADATA}')


def assert_problem(result: dict[str, Any], status: int, code: str, title: str, detail: str, challenge: str,
                   extra: dict[str, str] | None = None) -> None:
    h = headers(result)
    request_id = h.pop("x-request-id")
    assert (result["statusCode"], h) == (status, {"content-type": "application/problem+json", "vary": "Accept",
                                                  "www-authenticate": challenge, **(extra or {})})
    assert body(result) == {"type": f"{ISSUER}/problems/{code}", "title": title, "status": status,
                            "detail": detail, "instance": "/charges", "code": code, "traceId": request_id}


def assert_invalid_proof(result: dict[str, Any], detail: str) -> None:
    assert_problem(result, 401, "invalid_dpop_proof", "Invalid DPoP proof", detail,
                   dpop_challenge("invalid_dpop_proof", detail))


# --------------------------------------------------------------------------- success

@pytest.mark.parametrize("alg", ["ES256", "EdDSA", "RS256", "PS256"])
def test_a_bound_token_with_its_proof_lists_charges(demo: Demo, tokens: TokenClient, invoke: Any, alg: str) -> None:
    key = DpopKey(alg)
    token = dpop_token(tokens, key)
    result = get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token)])
    assert result["statusCode"] == 200 and "data" in body(result)


def test_bearer_tokens_still_work_and_the_scheme_is_case_insensitive(demo: Demo, tokens: TokenClient,
                                                                     invoke: Any) -> None:
    assert invoke("charges", demo.event("GET"))["statusCode"] == 200
    key = DpopKey()
    token = dpop_token(tokens, key)
    assert get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token)],
               scheme="dpop")["statusCode"] == 200


# --------------------------------------------------------------------------- attacks

def test_a_bound_token_sent_as_bearer_is_invalid_token(demo: Demo, tokens: TokenClient, invoke: Any) -> None:
    key = DpopKey()
    token = dpop_token(tokens, key)
    detail = "The access token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof (RFC 9449 7.1)."
    for proofs in ([], [key.proof("GET", CHARGES_URL, access_token=token)]):
        assert_problem(get(demo, invoke, token, proofs, scheme="Bearer"), 401, "invalid_token",
                       "Invalid access token", detail,
                       f'Bearer realm="api", error="invalid_token", error_description="{detail}", {METADATA}, '
                       f"DPoP {ALGS}, {METADATA}")


def test_an_unbound_token_under_the_dpop_scheme_is_refused(demo: Demo, invoke: Any) -> None:
    token = demo.token()
    detail = "The access token is not DPoP-bound; send it as Authorization: Bearer."
    assert_problem(get(demo, invoke, token, [DpopKey().proof("GET", CHARGES_URL, access_token=token)]),
                   401, "invalid_token", "Invalid access token", detail, dpop_challenge("invalid_token", detail))


def test_a_proof_by_another_key_is_refused(demo: Demo, tokens: TokenClient, invoke: Any) -> None:
    token = dpop_token(tokens, DpopKey())
    assert_invalid_proof(get(demo, invoke, token, [DpopKey().proof("GET", CHARGES_URL, access_token=token)]),
                         "The DPoP proof's key is not the key the access token is bound to.")


def test_ath_of_another_token_is_refused(demo: Demo, tokens: TokenClient, invoke: Any) -> None:
    key = DpopKey()
    token, other = dpop_token(tokens, key), dpop_token(tokens, key)
    assert_invalid_proof(get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=other)]),
                         "The DPoP proof's ath does not match the access token.")
    assert_invalid_proof(get(demo, invoke, token, [key.proof("GET", CHARGES_URL)]),
                         "The DPoP proof's ath does not match the access token.")


def test_replay_other_method_url_and_time_are_refused(demo: Demo, tokens: TokenClient, invoke: Any) -> None:
    key = DpopKey()
    token = dpop_token(tokens, key)
    proof = key.proof("GET", CHARGES_URL, access_token=token)
    assert get(demo, invoke, token, [proof])["statusCode"] == 200
    assert_invalid_proof(get(demo, invoke, token, [proof]),
                         "The DPoP proof was already used (jti); make a new proof for each request.")
    assert_invalid_proof(get(demo, invoke, token, [key.proof("POST", CHARGES_URL, access_token=token)]),
                         "The DPoP proof's htm does not match the request method GET.")
    assert_invalid_proof(get(demo, invoke, token, [key.proof("GET", f"{ISSUER}/charges/ch_1", access_token=token)]),
                         f"The DPoP proof's htu does not match the request URI {CHARGES_URL}.")
    assert_invalid_proof(get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token,
                                                             iat=int(time.time()) - 130)]),
                         "The DPoP proof is too old (iat); make a new proof for each request.")
    assert_invalid_proof(get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token,
                                                             iat=int(time.time()) + 130)]),
                         "The DPoP proof was issued in the future (iat).")


def test_missing_and_duplicate_proof_headers_are_refused(demo: Demo, tokens: TokenClient, invoke: Any) -> None:
    key = DpopKey()
    token = dpop_token(tokens, key)
    assert_invalid_proof(get(demo, invoke, token, []),
                         "The request carries no DPoP proof; a DPoP-bound token needs one (RFC 9449 7.1).")
    assert_invalid_proof(get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token),
                                                   key.proof("GET", CHARGES_URL, access_token=token)]),
                         "The request carries more than one DPoP header (RFC 9449 4.3).")


def test_a_private_key_in_the_proof_is_refused(demo: Demo, tokens: TokenClient, invoke: Any) -> None:
    key = DpopKey()
    token = dpop_token(tokens, key)
    proof = key.proof("GET", CHARGES_URL, access_token=token, header={"jwk": dict(key.key.as_dict(private=True))})
    assert_invalid_proof(get(demo, invoke, token, [proof]), "The DPoP proof's jwk must be a public key (RFC 9449 4.3).")


@pytest.mark.parametrize(("client_id", "accept", "shape"), [
    ("demo-service", "application/problem+json", "problem"),
    ("demo-service", "application/vnd.api+json", "jsonapi"),
    ("demo-legacy-a", None, "legacy-a"),
    ("demo-legacy-b", None, "legacy-b"),
])
def test_every_error_shape_renders_the_dpop_codes(demo: Demo, tokens: TokenClient, invoke: Any, client_id: str,
                                                  accept: str | None, shape: str) -> None:
    key = DpopKey()
    token = dpop_token(tokens, key, client_id)
    extra = {"Accept": accept} if accept else {}
    result = get(demo, invoke, token, [DpopKey().proof("GET", CHARGES_URL, access_token=token)], extra=extra)
    mv = [(k, v) for k, vs in result["multiValueHeaders"].items() for v in vs]
    reading = read_error(result["statusCode"], mv, result["body"])
    assert (result["statusCode"], reading.shape, reading.code, tuple(reading.defects)) == (
        401, shape, "invalid_dpop_proof", ())
    assert headers(result)["www-authenticate"].startswith('DPoP algs="ES256 EdDSA RS256 PS256", '
                                                          'error="invalid_dpop_proof"')


# --------------------------------------------------------------------------- nonces (RFC 9449 8, 9)

@pytest.fixture
def nonces(monkeypatch: pytest.MonkeyPatch, demo: Demo) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_DPOP_NONCES", "true")
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()


def test_token_endpoint_asks_for_a_nonce_then_accepts_it(nonces: None, tokens: TokenClient, clock: Any) -> None:
    key = DpopKey()
    now = int(clock())  # stopped: no slot boundary can pass during the test
    auth = basic("demo-service", SECRETS["demo-service"])
    fields = [("grant_type", "client_credentials")]
    first = tokens.post(fields, auth=auth, headers=[("DPoP", key.proof("POST", TOKEN_URL, iat=now))])
    h = headers_of(first)
    nonce = h.pop("DPoP-Nonce")
    h.pop("x-request-id")
    assert (first["statusCode"], h, body_of(first)["error"]) == (
        400, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"},
        "use_dpop_nonce")
    assert body_of(first)["error_description"] == "This server requires a DPoP nonce; use the DPoP-Nonce header's value."
    stale = tokens.post(fields, auth=auth, headers=[("DPoP", key.proof("POST", TOKEN_URL, nonce="stale", iat=now))])
    assert (stale["statusCode"], body_of(stale)["error"], headers_of(stale)["DPoP-Nonce"]) == (
        400, "use_dpop_nonce", nonce)
    ok = tokens.post(fields, auth=auth, headers=[("DPoP", key.proof("POST", TOKEN_URL, nonce=nonce, iat=now))])
    assert (ok["statusCode"], body_of(ok)["token_type"]) == (200, "DPoP")


def test_resource_asks_for_a_nonce_with_401(nonces: None, demo: Demo, tokens: TokenClient, invoke: Any,
                                            clock: Any) -> None:
    from authgate.tokens.dpop_nonce import current

    key = DpopKey()
    now = int(clock())  # stopped: no slot boundary can pass during the test
    nonce = current(now)
    result = tokens.client_credentials(headers=[("DPoP", key.proof("POST", TOKEN_URL, nonce=nonce, iat=now))])
    token = body_of(result)["access_token"]
    detail = "This server requires a DPoP nonce; use the DPoP-Nonce header's value."
    assert_problem(get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token, iat=now)]), 401,
                   "use_dpop_nonce", "DPoP nonce required", detail, dpop_challenge("use_dpop_nonce", detail),
                   {"dpop-nonce": nonce})
    result = get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token, nonce=nonce, iat=now)])
    assert result["statusCode"] == 200 and "dpop-nonce" not in headers(result)


def test_a_success_with_last_slots_nonce_carries_the_next(nonces: None, demo: Demo, tokens: TokenClient,
                                                          invoke: Any, clock: Any) -> None:
    from authgate.tokens.dpop_nonce import NONCE_SLOT_SECONDS, current

    key = DpopKey()
    now = int(clock())  # stopped: no slot boundary can pass during the test
    old = current(now - NONCE_SLOT_SECONDS)
    result = tokens.client_credentials(headers=[("DPoP", key.proof("POST", TOKEN_URL, nonce=old, iat=now))])
    assert (result["statusCode"], headers_of(result)["DPoP-Nonce"]) == (200, current(now))


def test_a_nonce_lives_one_to_two_slots(nonces: None) -> None:
    from authgate.tokens.dpop_nonce import NONCE_SLOT_SECONDS, SlotNonces

    nonces = SlotNonces(b"k" * 32)
    start = 1_700_000_100 // NONCE_SLOT_SECONDS * NONCE_SLOT_SECONDS
    issued = nonces.current(start)
    assert nonces.accepts(issued, start + NONCE_SLOT_SECONDS)  # previous slot still good
    assert not nonces.accepts(issued, start + 2 * NONCE_SLOT_SECONDS)
    assert not SlotNonces(b"j" * 32).accepts(issued, start)  # another stack's key
    assert nonces.current(start + NONCE_SLOT_SECONDS) != issued


def test_nonces_keyed_from_the_stacks_session_secret(monkeypatch: pytest.MonkeyPatch, demo: Demo,
                                                     tokens: TokenClient, invoke: Any, clock: Any) -> None:
    """As deployed: the key comes from Secrets Manager, read by the token and the charges functions alike."""
    import boto3

    from authgate import caches

    arn = boto3.client("secretsmanager").create_secret(Name="authgate/local/session",
                                                        SecretString="s" * 64)["ARN"]
    monkeypatch.setenv("AUTHGATE_DPOP_NONCES", "true")
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET_ARN", arn)
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    caches.reset()
    key = DpopKey()
    now = int(clock())
    asked = tokens.client_credentials(headers=[("DPoP", key.proof("POST", TOKEN_URL, iat=now))])
    nonce = headers_of(asked)["DPoP-Nonce"]
    token = body_of(tokens.client_credentials(
        headers=[("DPoP", key.proof("POST", TOKEN_URL, nonce=nonce, iat=now))]))["access_token"]
    caches.reset()  # a cold charges container: it reads the secret itself and computes the same nonce
    result = get(demo, invoke, token, [key.proof("GET", CHARGES_URL, access_token=token, nonce=nonce, iat=now)])
    assert result["statusCode"] == 200
