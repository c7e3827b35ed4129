"""Findings of the outside review (issue 20), each through the real handlers with the whole response.

Crafted tokens, proofs and assertions that used to end in a 500 (RecursionError, TypeError,
ValueError from NaN), in a replay window, or in an accepted forgery (an Ed25519 key of small
order, an RSA key with e = 3, a second encoding of one EC key) are refused with the documented
client error of where they arrive. Raw segments are signed by hand where a JOSE library would
refuse to write them; proofs and assertions otherwise come from joserfc.
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.bearer_requests import bearer, event, issue, seed_client
from tests.conftest import START
from tests.demo import ISSUER, SECRETS, Demo, body, headers
from tests.dpop_support import DpopKey
from tests.functional.assertion_support import (
    assertion,
    assertion_fields,
    new_private_jwk,
    public_of,
)
from tests.functional.test_guard import assert_invalid_token, claims_now, current_header
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    assert_invalid_client,
    basic,
    body_of,
)

TOKEN_URL = f"{ISSUER}/oauth/token"
CHARGES_URL = f"{ISSUER}/charges"
LEEWAY = 120
GRANT = [("grant_type", "client_credentials"), ("scope", "charges:read")]
DEEP = "[" * 1100 + "]" * 1100  # past the JSON parser's recursion limit (1000), within the size limits


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_token(header: bytes, payload: bytes) -> str:
    """header.payload.signature over raw segments, signed by the current key (what a key holder could send)."""
    from authgate.tokens.current_signer import current_signer

    signing_input = f"{b64(header)}.{b64(payload)}"
    return f"{signing_input}.{b64(current_signer().sign(signing_input.encode()))}"


def header_bytes() -> bytes:
    return json.dumps(current_header()).encode()


# --------------------------------------------------------------------------- item 1, 2, 4, 6: access tokens
@pytest.mark.parametrize("header", [b'{"alg":' + DEEP.encode() + b"}", b'{"alg":"RS256","x":' + DEEP.encode() + b"}"])
def test_a_deeply_nested_token_header_is_invalid_token(keys: None, clock: ManualClock, header: bytes) -> None:
    token = f"{b64(header)}.{b64(b'{}')}.{b64(b'sig')}"
    assert_invalid_token(event(headers=bearer(token)), "The access token is not a JWT.")


@pytest.mark.parametrize("payload", [
    '{"a":' + DEEP + "}",                                         # RecursionError in the claims
    json.dumps(claims_now(START)).replace(f'"exp": {START + 900}', '"exp": NaN'),  # not JSON
    json.dumps(claims_now(START)).replace(f'"exp": {START + 900}', '"exp": 1e400'),  # infinite
    json.dumps(claims_now(START)).replace('"sub": "demo-service"', '"sub": "demo-service", "sub": "x"'),
])
def test_a_signed_payload_that_is_not_strict_json_is_invalid_token(keys: None, clock: ManualClock,
                                                                   payload: str) -> None:
    token = raw_token(header_bytes(), payload.encode())
    assert_invalid_token(event(headers=bearer(token)), "The token claims are not a JSON object.")


def test_a_token_is_refused_at_exactly_exp_plus_leeway(keys: None, clock: ManualClock) -> None:
    seed_client()
    token = issue().token
    clock.advance(900 + LEEWAY - 1)
    from tests.bearer_requests import call

    assert call(event(headers=bearer(token)))[0] == 200
    clock.advance(1)  # RFC 7519 4.1.4: "on or after" the expiry time (plus the leeway) is refused
    assert_invalid_token(event(headers=bearer(token)), "The access token expired.")


def test_a_padded_segment_and_a_utf16_header_are_not_a_jwt(keys: None, clock: ManualClock) -> None:
    seed_client()
    good = raw_token(header_bytes(), json.dumps(claims_now(START)).encode())
    head, payload, signature = good.split(".")
    padded = signature + "=" * (-len(signature) % 4)
    assert padded != signature
    assert_invalid_token(event(headers=bearer(f"{head}.{payload}.{padded}")), "The access token is not a JWT.")
    utf16 = raw_token(b"\xff\xfe" + header_bytes().decode().encode("utf-16-le"),
                      json.dumps(claims_now(START)).encode())
    assert_invalid_token(event(headers=bearer(utf16)), "The access token is not a JWT.")


# --------------------------------------------------------------------------- DPoP at the token endpoint
def dpop_post(tokens: TokenClient, proof: str, client_id: str = "demo-service") -> dict[str, Any]:
    return tokens.post([("grant_type", "client_credentials")], auth=basic(client_id, SECRETS[client_id]),
                       headers=[("DPoP", proof)])


def ed25519_proof(private: Any, header: dict[str, Any] | bytes, claims: dict[str, Any]) -> str:
    """A proof signed by an Ed25519 private key (cryptography) over any header text."""
    head = header if isinstance(header, bytes) else json.dumps(header).encode()
    signing_input = f"{b64(head)}.{b64(json.dumps(claims).encode())}"
    return f"{signing_input}.{b64(private.sign(signing_input.encode()))}"


def proof_claims(**extra: Any) -> dict[str, Any]:
    import time

    return {"jti": str(uuid.uuid4()), "htm": "POST", "htu": TOKEN_URL, "iat": int(time.time()), **extra}


def test_a_deeply_nested_proof_header_is_invalid_dpop_proof(tokens: TokenClient) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    proof = ed25519_proof(Ed25519PrivateKey.generate(), b'{"typ":"dpop+jwt","x":' + DEEP.encode() + b"}",
                          proof_claims())
    assert_error(dpop_post(tokens, proof), 400, "invalid_dpop_proof", "The DPoP proof's header is not a JSON object.")


def test_a_proof_typ_is_a_media_type_compared_case_insensitively(tokens: TokenClient) -> None:
    for typ in ("DPoP+JWT", "application/dpop+jwt"):
        key = DpopKey()
        result = dpop_post(tokens, key.proof("POST", TOKEN_URL, header={"typ": typ}))
        assert result["statusCode"] == 200, result["body"]


# The identity point (y = 1): R = identity, S = 0 is a valid signature of every message under it.
IDENTITY = bytes([1]) + bytes(31)
FORGED = IDENTITY + bytes(32)


def forged_proof(claims: dict[str, Any]) -> str:
    header = {"typ": "dpop+jwt", "alg": "EdDSA", "jwk": {"kty": "OKP", "crv": "Ed25519", "x": b64(IDENTITY)}}
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    return f"{signing_input}.{b64(FORGED)}"


def test_a_proof_under_an_ed25519_key_of_small_order_is_refused(tokens: TokenClient) -> None:
    assert_error(dpop_post(tokens, forged_proof(proof_claims())), 400, "invalid_dpop_proof",
                 "The DPoP proof's jwk is not a usable public key (RSA 2048+, P-256 or Ed25519).")


def test_a_proof_key_with_a_small_rsa_exponent_or_a_padded_ec_coordinate_is_refused(tokens: TokenClient) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa
    from joserfc import jwt
    from joserfc.jwk import RSAKey

    e3 = RSAKey.import_key(rsa.generate_private_key(3, 2048))
    header = {"typ": "dpop+jwt", "alg": "PS256", "jwk": dict(e3.as_dict(private=False))}
    proof = jwt.encode(header, proof_claims(), e3, algorithms=["PS256"])
    assert_error(dpop_post(tokens, proof), 400, "invalid_dpop_proof",
                 "The DPoP proof's jwk is not a usable public key (RSA 2048+, P-256 or Ed25519).")
    key = DpopKey("ES256")
    jwk = key.public_jwk
    padded = {**jwk, "x": b64(b"\x00" + base64.urlsafe_b64decode(jwk["x"] + "=="))}  # 33 octets, same point
    assert_error(dpop_post(tokens, key.proof("POST", TOKEN_URL, header={"jwk": padded})), 400, "invalid_dpop_proof",
                 "The DPoP proof's jwk is not a usable public key (RSA 2048+, P-256 or Ed25519).")


def test_a_fapi2_clients_proof_must_be_ps256_es256_or_eddsa(tokens: TokenClient, clock: ManualClock, demo: Demo,
                                                            invoke: Any) -> None:
    from authgate.stores.clients import ClientStore

    private = new_private_jwk("EC", kid="ec-1")
    ClientStore().create(client_id="fapi-service", tenant_id="demo", grant_types=["client_credentials"],
                         scopes=["charges:read"], token_endpoint_auth_method="private_key_jwt",
                         jwks=[public_of(private)], profile="fapi2")

    def post(proof: str) -> dict[str, Any]:
        return tokens.post(GRANT + assertion_fields(assertion(private, "fapi-service", START)), headers=[("DPoP", proof)])

    assert_error(post(DpopKey("RS256").proof("POST", TOKEN_URL, iat=START)), 400, "invalid_dpop_proof",
                 "The DPoP proof's alg must be one of PS256, ES256, EdDSA for this client (FAPI 2.0 5.4).")
    key = DpopKey("PS256")
    issued = post(key.proof("POST", TOKEN_URL, iat=START))
    assert issued["statusCode"] == 200, issued["body"]
    # At the resource too: the same RSA key, now signing RS256.
    token = body_of(issued)["access_token"]
    key.alg = "RS256"
    result = invoke("charges", demo.event("GET", client=None, headers={
        "Authorization": f"DPoP {token}", "DPoP": [key.proof("GET", CHARGES_URL, access_token=token, iat=START)]}))
    detail = "The DPoP proof's alg must be one of PS256, ES256, EdDSA for this client (FAPI 2.0 5.4)."
    assert (result["statusCode"], headers(result)["content-type"]) == (401, "application/problem+json")
    assert body(result)["detail"] == detail and body(result)["code"] == "invalid_dpop_proof"
    key.alg = "PS256"
    ok = invoke("charges", demo.event("GET", client=None, headers={
        "Authorization": f"DPoP {token}", "DPoP": [key.proof("GET", CHARGES_URL, access_token=token, iat=START)]}))
    assert ok["statusCode"] == 200, ok["body"]


# --------------------------------------------------------------------------- DPoP at the resource
def test_a_non_ascii_ath_is_invalid_dpop_proof(tokens: TokenClient, demo: Demo, invoke: Any) -> None:
    key = DpopKey()
    result = tokens.client_credentials("demo-service", headers=[("DPoP", key.proof("POST", TOKEN_URL))])
    token = body_of(result)["access_token"]
    proof = key.proof("GET", CHARGES_URL, claims={"ath": "é" * 43})
    result = invoke("charges", demo.event("GET", headers={"Authorization": f"DPoP {token}", "DPoP": [proof]}))
    detail = "The DPoP proof's ath does not match the access token."
    assert (result["statusCode"], headers(result)["content-type"]) == (401, "application/problem+json")
    assert {k: v for k, v in body(result).items() if k != "traceId"} == {
        "type": f"{ISSUER}/problems/invalid_dpop_proof", "title": "Invalid DPoP proof", "status": 401,
        "detail": detail, "instance": "/charges", "code": "invalid_dpop_proof"}


# --------------------------------------------------------------------------- client assertions
CLIENT = "pkjwt-hardening"


def register(jwks: list[dict[str, Any]]) -> None:
    from authgate.stores.clients import ClientStore

    ClientStore().create(client_id=CLIENT, tenant_id="demo", grant_types=["client_credentials"],
                         scopes=["charges:read"], token_endpoint_auth_method="private_key_jwt", jwks=jwks)


@pytest.mark.parametrize("exp", [float("nan"), float("inf"), True, 10**30])
def test_a_non_finite_or_absurd_exp_is_invalid_client(tokens: TokenClient, clock: ManualClock, exp: Any) -> None:
    private = new_private_jwk("EC", kid="ec-1")
    register([public_of(private)])
    assert_invalid_client(tokens.post(GRANT + assertion_fields(assertion(private, CLIENT, START, exp=exp))))


def test_a_fractional_exp_cannot_be_replayed_in_its_last_second(tokens: TokenClient, clock: ManualClock) -> None:
    private = new_private_jwk("EC", kid="ec-1")
    register([public_of(private)])
    token = assertion(private, CLIENT, START, exp=START + 0.5)
    assert tokens.post(GRANT + assertion_fields(token))["statusCode"] == 200
    clock.advance(LEEWAY)  # still acceptable: START + LEEWAY < exp + LEEWAY
    assert_invalid_client(tokens.post(GRANT + assertion_fields(token)))


def test_a_registered_ed25519_key_of_small_order_authenticates_nobody(tokens: TokenClient,
                                                                       clock: ManualClock) -> None:
    # Registered before keys were checked (stored as is): the forged assertion still fails.
    register([{"kty": "OKP", "crv": "Ed25519", "x": b64(IDENTITY), "kid": "zero"}])
    claims = {"iss": CLIENT, "sub": CLIENT, "aud": ISSUER, "iat": START, "exp": START + 60, "jti": "j-1"}
    signing_input = f"{b64(json.dumps({'alg': 'EdDSA', 'kid': 'zero'}).encode())}.{b64(json.dumps(claims).encode())}"
    assert_invalid_client(tokens.post(GRANT + assertion_fields(f"{signing_input}.{b64(FORGED)}")))


def test_a_deeply_nested_assertion_is_invalid_client(tokens: TokenClient, clock: ManualClock) -> None:
    register([public_of(new_private_jwk("EC", kid="ec-1"))])
    head = b'{"alg":' + DEEP.encode() + b"}"
    token = f"{b64(head)}.{b64(b'{}')}.{b64(b'sig')}"
    result = tokens.post(GRANT + assertion_fields(token, CLIENT))
    assert_invalid_client(result)


def test_the_dpop_replay_guard_judges_by_the_requests_time(demo: Demo, clock: ManualClock) -> None:
    """A proof accepted at request time t keeps its jti until after t, however late the write."""
    from authgate.errors import ApiError
    from authgate.http.request import Request
    from authgate.oauth.token.dpop_proof import token_proof
    from authgate.stores.clients import ClientStore

    client = ClientStore().get("demo-service")
    assert client is not None
    iat = START - LEEWAY
    proof = DpopKey().proof("POST", TOKEN_URL, iat=iat)
    request = Request.from_event(demo.event("POST", "/oauth/token", client=None, headers={"DPoP": [proof]}))
    clock.value = iat + LEEWAY - 1
    assert token_proof(request, client, iat + LEEWAY - 1) is not None
    # The replay arrives at iat + leeway (the last acceptable second); its write lands a second later.
    clock.value = iat + LEEWAY + 1
    with pytest.raises(ApiError) as refused:
        token_proof(request, client, iat + LEEWAY)
    assert (refused.value.code, refused.value.detail) == (
        "invalid_dpop_proof", "The DPoP proof was already used (jti); make a new proof for each request.")
