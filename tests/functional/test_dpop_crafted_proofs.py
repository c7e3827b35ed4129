"""DPoP proofs crafted against the checks of RFC 9449 4.3, at the token endpoint and the charges resource.

A proof whose header nests past the JSON parser's limit, whose key is an Ed25519 point of small
order, an RSA key with e = 3 or a second encoding of an EC key, an ath that is not ASCII, an alg a
FAPI 2.0 client may not use, or a replay whose write lands late: each is refused with the whole
invalid_dpop_proof error of where it arrives, and what the RFCs allow (a typ in any case or as a
full media type) is accepted. Proofs come from joserfc, raw segments signed by hand where a JOSE
library would refuse to write them.
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.conftest import START
from tests.crafted_inputs import DEEP, FORGED, IDENTITY
from tests.demo import ISSUER, SECRETS, Demo, body, headers
from tests.dpop_support import DpopKey
from tests.functional.assertion_support import (
    assertion,
    assertion_fields,
    new_private_jwk,
    public_of,
)
from tests.functional.token_support import TokenClient, assert_error, basic, body_of

TOKEN_URL = f"{ISSUER}/oauth/token"
CHARGES_URL = f"{ISSUER}/charges"
LEEWAY = 120
GRANT = [("grant_type", "client_credentials"), ("scope", "charges:read")]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


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
