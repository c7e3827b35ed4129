"""federation.oidc.id_token: an upstream ID token validated completely (Core 3.1.3.7), each attack refused.

The tokens are signed with joserfc by the scripted provider (or forged with keys it never published).
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import pytest

from authgate import base64url
from authgate.clock import ManualClock
from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.discovery import discover
from authgate.federation.oidc.id_token import validate
from authgate.tokens.idp_keys import REFETCH_SECONDS
from tests.document_server import DocumentServer
from tests.upstream_oidc import ACCESS_TOKEN, CLIENT_ID, NONCE, ScriptedProvider, other_keys, sign


def check(op: ScriptedProvider, token: str, **kwargs: Any) -> dict[str, Any]:
    idp = op.idp()
    return validate(idp, discover(idp), token, nonce=kwargs.pop("nonce", NONCE), now=int(time.time()), **kwargs)


def refusal(op: ScriptedProvider, token: str, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(UpstreamRefused) as caught:
        check(op, token, **kwargs)
    return caught.value.reason, caught.value.internal


def unsigned(header: dict[str, Any], claims: dict[str, Any]) -> str:
    return f"{base64url.encode(json.dumps(header).encode())}.{base64url.encode(json.dumps(claims).encode())}."


def test_a_valid_id_token_gives_its_claims(op: ScriptedProvider) -> None:
    claims = check(op, op.id_token())
    assert {k: claims[k] for k in ("iss", "sub", "aud", "nonce", "email")} == {
        "iss": op.issuer, "sub": "carol-upstream-1", "aud": CLIENT_ID, "nonce": NONCE,
        "email": "carol@democorp.example"}


def test_a_token_for_another_client_is_refused(op: ScriptedProvider) -> None:
    assert refusal(op, op.id_token(aud="another-client")) == (
        "id_token_audience_invalid", "aud 'another-client' does not name 'authgate-client'")


def test_with_several_audiences_azp_must_be_this_client(op: ScriptedProvider) -> None:
    assert refusal(op, op.id_token(aud=[CLIENT_ID, "other"])) == (
        "id_token_audience_invalid", """azp 'None' is not 'authgate-client' (aud "['authgate-client', 'other']")""")
    assert check(op, op.id_token(aud=[CLIENT_ID, "other"], azp=CLIENT_ID))["azp"] == CLIENT_ID
    assert refusal(op, op.id_token(azp="other"))[0] == "id_token_audience_invalid"


def test_an_expired_token_is_refused_beyond_the_leeway(op: ScriptedProvider) -> None:
    now = int(time.time())
    assert check(op, op.id_token(exp=now - 60, iat=now - 400))["sub"] == "carol-upstream-1"  # within 120 s
    reason, internal = refusal(op, op.id_token(exp=now - 121, iat=now - 400))
    assert reason == "id_token_expired" and internal.startswith(f"exp {now - 121} is past")
    assert refusal(op, op.id_token(iat=now + 600, exp=now + 900))[0] == "id_token_time_invalid"
    assert refusal(op, op.id_token(exp=None)) == ("id_token_malformed", "exp and iat must be NumericDates (Core 2)")


@pytest.mark.parametrize("alg", ["none", "HS256"])
def test_an_unsigned_or_mac_token_is_refused(op: ScriptedProvider, alg: str) -> None:
    """RFC 8725 3.1: `none`, and an HMAC keyed with the client secret anyone at the IdP's side knows."""
    token = unsigned({"alg": "none", "typ": "JWT"}, op.claims()) if alg == "none" else \
        sign({"alg": "HS256", "kid": op.kid}, op.claims(), other_keys()["hmac"])
    assert refusal(op, token) == ("id_token_algorithm_refused", f"alg '{alg}'")


@pytest.mark.parametrize("kind", ["rsa", "ec"])
def test_a_token_signed_by_a_key_the_provider_never_published_is_refused(op: ScriptedProvider, kind: str) -> None:
    alg = "RS256" if kind == "rsa" else "ES256"
    token = sign({"alg": alg, "kid": op.kid}, op.claims(), other_keys()[kind])
    assert refusal(op, token) == ("id_token_signature_invalid", "no key of the provider verifies it (kid 'op-key-1')")


def test_an_id_token_from_another_idp_is_refused(op: ScriptedProvider, trusted: DocumentServer) -> None:
    """IdP B's genuine token, presented to a sign-in with IdP A: neither its key nor its iss is A's."""
    other = ScriptedProvider(trusted, "idp-b")
    assert refusal(op, other.id_token())[0] == "id_token_signature_invalid"
    # Even signed with A's key (an IdP that shares keys), B's iss is refused.
    assert refusal(op, op.id_token(iss=other.issuer)) == (
        "id_token_issuer_invalid", f"iss '{other.issuer}' is not '{op.issuer}'")


def test_a_nonce_that_is_not_this_sign_in_s_is_refused(op: ScriptedProvider) -> None:
    assert refusal(op, op.id_token(nonce="another-nonce")) == (
        "nonce_mismatch", "the ID token's nonce is not this sign-in's")
    assert refusal(op, op.id_token(nonce=None)) == ("nonce_mismatch", "the ID token has no nonce")


def test_a_logout_token_is_never_an_id_token(op: ScriptedProvider) -> None:
    assert refusal(op, op.id_token(header={"typ": "logout+jwt"})) == ("id_token_type_invalid", "typ 'logout+jwt'")
    assert check(op, op.id_token(header={"typ": None}))["sub"]


def test_at_hash_when_sent_is_the_access_token_s(op: ScriptedProvider) -> None:
    at_hash = base64url.encode(hashlib.sha256(ACCESS_TOKEN.encode()).digest()[:16])
    assert check(op, op.id_token(at_hash=at_hash), access_token=ACCESS_TOKEN)["at_hash"] == at_hash
    assert refusal(op, op.id_token(at_hash=at_hash), access_token="another-access-token") == (
        "at_hash_mismatch", "at_hash is not the access token's (Core 3.1.3.8)")


def test_max_age_needs_a_recent_auth_time(op: ScriptedProvider) -> None:
    now = int(time.time())
    assert check(op, op.id_token(auth_time=now - 30), max_age=60)["auth_time"] == now - 30
    assert refusal(op, op.id_token(), max_age=60) == (
        "auth_time_missing", "max_age was asked and the ID token has no auth_time")
    assert refusal(op, op.id_token(auth_time=now - 600), max_age=60)[0] == "max_age_exceeded"


def test_a_rotated_key_is_fetched_once_for_its_new_kid(op: ScriptedProvider, trusted: DocumentServer,
                                                      clock: ManualClock) -> None:
    """tokens.idp_keys: an unknown kid refetches the set, at most once per REFETCH_SECONDS."""
    check(op, op.id_token())
    from joserfc.jwk import RSAKey

    op.key = RSAKey.generate_key(2048, parameters={"kid": "op-key-2", "alg": "RS256", "use": "sig"})
    op.kid = "op-key-2"
    op.publish()
    assert refusal(op, op.id_token())[0] == "id_token_signature_invalid"  # tried within the window: no fetch
    clock.advance(REFETCH_SECONDS)
    assert check(op, op.id_token())["sub"] == "carol-upstream-1"
    assert [p for p, _ in trusted.requests].count("/idp-a/jwks") == 2


def test_a_malformed_token_is_refused(op: ScriptedProvider) -> None:
    assert refusal(op, "not.a-token") == ("id_token_malformed", "not a compact JWS (RFC 7515 7.1)")
    assert refusal(op, "e30.bm90IGpzb24.c2ln")[0] == "id_token_malformed"
    assert refusal(op, op.id_token(sub=""))[0] == "id_token_malformed"
