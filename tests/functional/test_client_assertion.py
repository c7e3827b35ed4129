"""private_key_jwt at the token endpoint (RFC 7523 2.2, 3; FAPI 2.0 5.3.2.1): assertions made by
joserfc, every failure the whole invalid_client response of the contract."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.conftest import START
from tests.crafted_inputs import DEEP, FORGED, IDENTITY
from tests.demo import ISSUER
from tests.functional.assertion_support import (
    assertion,
    assertion_fields,
    new_private_jwk,
    public_of,
)
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    assert_invalid_client,
    basic,
    body_of,
)

CLIENT = "pkjwt-service"
GRANT = [("grant_type", "client_credentials"), ("scope", "charges:read")]
LEEWAY = 120


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture
def keys_of_client(tokens: TokenClient, clock: ManualClock) -> dict[str, dict[str, Any]]:
    """A confidential client registered for private_key_jwt with an EC, an RSA and an Ed25519 key."""
    from authgate.stores.clients import ClientStore

    private = {kty: new_private_jwk(kty, kid=f"{kty.lower()}-1") for kty in ("EC", "RSA", "OKP")}
    ClientStore().create(client_id=CLIENT, tenant_id="demo", grant_types=["client_credentials"],
                         scopes=["charges:read"], token_endpoint_auth_method="private_key_jwt",
                         jwks=[public_of(k) for k in private.values()])
    return private


def post(tokens: TokenClient, token: str, **kwargs: Any) -> dict[str, Any]:
    return tokens.post(GRANT + assertion_fields(token), **kwargs)


@pytest.mark.filterwarnings("ignore:EdDSA is deprecated")
@pytest.mark.parametrize(("kty", "alg"), [("EC", "ES256"), ("RSA", "PS256"), ("OKP", "EdDSA"), ("OKP", "Ed25519")])
def test_an_assertion_signed_by_a_registered_key_authenticates(tokens: TokenClient, keys_of_client: Any,
                                                               kty: str, alg: str) -> None:
    result = post(tokens, assertion(keys_of_client[kty], CLIENT, START, alg=alg))
    assert result["statusCode"] == 200, result["body"]
    body = body_of(result)
    assert (body["token_type"], body["scope"]) == ("Bearer", "charges:read")


def test_a_replayed_assertion_is_invalid_client(tokens: TokenClient, keys_of_client: Any) -> None:
    token = assertion(keys_of_client["EC"], CLIENT, START)
    assert post(tokens, token)["statusCode"] == 200
    assert_invalid_client(post(tokens, token))


@pytest.mark.parametrize("aud", [[ISSUER], [ISSUER, "https://other.example"], "https://other.example",
                                 f"{ISSUER}/oauth/introspect", ISSUER + "/"])
def test_an_audience_other_than_this_server_as_a_string_is_invalid_client(tokens: TokenClient, keys_of_client: Any,
                                                                          aud: Any) -> None:
    # Arrays never (audience injection, draft-ietf-oauth-rfc7523bis); other strings are not this server.
    assert_invalid_client(post(tokens, assertion(keys_of_client["EC"], CLIENT, START, aud=aud)))


@pytest.mark.parametrize("aud", [ISSUER, f"{ISSUER}/oauth/token", f"{ISSUER}/oauth/par"])
def test_the_issuer_and_the_endpoint_urls_are_accepted_audiences(tokens: TokenClient, keys_of_client: Any,
                                                                 aud: str) -> None:
    # RFC 9126 2: the server MUST accept its issuer identifier, token endpoint URL or PAR endpoint URL.
    assert post(tokens, assertion(keys_of_client["EC"], CLIENT, START, aud=aud))["statusCode"] == 200


def test_an_assertion_signed_by_an_unregistered_key_is_invalid_client(tokens: TokenClient,
                                                                      keys_of_client: Any) -> None:
    stranger = new_private_jwk("EC", kid="ec-1")  # same kid, another key
    assert_invalid_client(post(tokens, assertion(stranger, CLIENT, START)))


def test_an_expired_assertion_is_invalid_client(tokens: TokenClient, keys_of_client: Any, clock: ManualClock) -> None:
    token = assertion(keys_of_client["EC"], CLIENT, START)
    clock.advance(60 + 120)  # exp + the leeway
    assert_invalid_client(post(tokens, token))


@pytest.mark.parametrize("claims", [
    {"exp": None}, {"exp": START + 3600}, {"iat": START + 61}, {"nbf": START + 61}, {"jti": None},
    {"iss": "demo-service"}, {"sub": "demo-service"}, {"exp": "soon"},
])
def test_claims_out_of_bounds_are_invalid_client(tokens: TokenClient, keys_of_client: Any,
                                                 claims: dict[str, Any]) -> None:
    assert_invalid_client(post(tokens, assertion(keys_of_client["EC"], CLIENT, START, **claims)))


def test_iat_and_nbf_up_to_60_seconds_ahead_are_accepted(tokens: TokenClient, keys_of_client: Any) -> None:
    # FAPI 2.0 5.3.2.1 item 13: accept 10 s of clock offset; we accept up to the 60 s it allows.
    token = assertion(keys_of_client["EC"], CLIENT, START, iat=START + 60, nbf=START + 10, exp=START + 120)
    assert post(tokens, token)["statusCode"] == 200


def test_kid_selects_the_key_and_a_missing_kid_tries_every_key_of_the_type(tokens: TokenClient,
                                                                           keys_of_client: Any) -> None:
    no_kid = {k: v for k, v in keys_of_client["EC"].items() if k != "kid"}
    assert post(tokens, assertion(no_kid, CLIENT, START))["statusCode"] == 200
    wrong_kid = {**keys_of_client["EC"], "kid": "rsa-1"}
    assert_invalid_client(post(tokens, assertion(wrong_kid, CLIENT, START)))


def test_symmetric_and_unsigned_assertions_are_invalid_client(tokens: TokenClient, keys_of_client: Any) -> None:
    from joserfc import jwt
    from joserfc.jwk import OctKey

    hs = jwt.encode({"alg": "HS256"}, {"iss": CLIENT, "sub": CLIENT, "aud": ISSUER, "exp": START + 60, "jti": "h"},
                    OctKey.import_key(b"k" * 32))
    assert_invalid_client(post(tokens, hs))
    unsigned = hs.rsplit(".", 2)[0].replace(hs.split(".")[0], "eyJhbGciOiJub25lIn0") + ".."
    assert_invalid_client(post(tokens, unsigned))
    rs256 = assertion(keys_of_client["RSA"], CLIENT, START, alg="RS256")
    assert_invalid_client(post(tokens, rs256))


def test_a_private_key_jwt_client_cannot_use_a_secret_and_a_secret_client_cannot_use_an_assertion(
        tokens: TokenClient, keys_of_client: Any) -> None:
    assert_invalid_client(tokens.post(GRANT, auth=basic(CLIENT, "guess")))
    # demo-service registered a secret: an assertion (even a well-formed one) is not its method.
    token = assertion(keys_of_client["EC"], "demo-service", START)
    assert_invalid_client(tokens.post(GRANT + assertion_fields(token)))


def test_two_methods_or_a_wrong_assertion_type_is_invalid_request(tokens: TokenClient, keys_of_client: Any) -> None:
    token = assertion(keys_of_client["EC"], CLIENT, START)
    assert_error(tokens.post(GRANT + assertion_fields(token), auth=basic(CLIENT, "x")), 400, "invalid_request",
                 "Use one client authentication method, not client_assertion and a client secret together.")
    assert_error(tokens.post(GRANT + [("client_assertion_type", "urn:x"), ("client_assertion", token)]), 400,
                 "invalid_request",
                 "client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer "
                 "(RFC 7523 2.2).")
    assert_error(tokens.post(GRANT + assertion_fields(token, client_id="demo-service")), 400, "invalid_request",
                 "client_id differs from the client assertion's issuer.")
    assert_invalid_client(tokens.post(GRANT + assertion_fields("not-a-jwt")))


# --------------------------------------------------------------------------- crafted assertions and keys
# Non-finite or absurd exp, a fractional exp's last second, a small-order key, nesting past the parser's limit.
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
