"""oauth.token.client_assertion: private_key_jwt assertions parsed and verified (RFC 7523 2.2, 3; FAPI 2.0 5.3.2.1).

Assertions are signed by joserfc with freshly generated keys; the jti check writes to moto's replay table.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.base64url import encode as b64
from authgate.clients.model import FAPI2, Client
from authgate.oauth.token.client_assertion import (
    MAX_ASSERTION,
    MAX_FUTURE_SKEW,
    MAX_LIFETIME,
    Assertion,
    AssertionRejected,
    audiences,
    parse,
    verify,
)
from tests.conftest import START
from tests.demo import ISSUER
from tests.functional.assertion_support import assertion, new_private_jwk, public_of

LEEWAY = 120  # the settings' default
EC = new_private_jwk("EC", "ec-1")
RSA = new_private_jwk("RSA", "rsa-1")
OKP = new_private_jwk("OKP", "okp-1")
OTHER_EC = new_private_jwk("EC", "ec-2")


def client(*keys: dict[str, Any], profile: str = "", client_id: str = "svc") -> Client:
    return Client(client_id, "t1", "local", "confidential", None, (), ("client_credentials",), (),
                  jwks=tuple(public_of(k) for k in keys), token_endpoint_auth_method="private_key_jwt",
                  profile=profile)


def compact(header: Any, claims: Any, signature: bytes = b"sig") -> str:
    return ".".join([b64(json.dumps(header).encode()), b64(json.dumps(claims).encode()), b64(signature)])


def rejected(token: str, c: Client) -> str:
    with pytest.raises(AssertionRejected) as info:
        verify(parse(token), c, ISSUER)
    return str(info.value)


# -- parse -----------------------------------------------------------------------------------------

def test_parse_splits_a_compact_jws() -> None:
    token = assertion(EC, "svc", START)
    parsed = parse(token)
    head, body, _ = token.split(".")
    assert (parsed.header["alg"], parsed.header["kid"]) == ("ES256", "ec-1")
    assert (parsed.claims["iss"], parsed.claims["sub"], parsed.claims["aud"]) == ("svc", "svc", ISSUER)
    assert parsed.signing_input == f"{head}.{body}".encode("ascii")
    assert len(parsed.signature) == 64  # ES256: r || s, 32 bytes each (RFC 7518 3.4)
    assert parsed.issuer == "svc"


@pytest.mark.parametrize(("token", "reason"), [
    ("a" * (MAX_ASSERTION + 1), "assertion too long"),
    ("only.two", "assertion is not a compact JWS"),
    ("a.b.c.d", "assertion is not a compact JWS"),
    (compact(["alg"], {"iss": "svc"}), "assertion header or claims are not JSON objects"),
    (compact({"alg": "ES256"}, "claims"), "assertion header or claims are not JSON objects"),
    (f"{b64(b'{}')}.notjson.{b64(b'x')}", "assertion header or claims are not JSON objects"),
    (compact({"alg": "ES256"}, {})[:-3] + "!!!", "assertion signature is not base64url"),
])
def test_parse_refuses_what_is_not_a_jws(token: str, reason: str) -> None:
    with pytest.raises(AssertionRejected) as info:
        parse(token)
    assert str(info.value) == reason


def test_the_issuer_is_only_a_string() -> None:
    assert Assertion({}, {"iss": 7}, b"", b"").issuer is None
    assert Assertion({}, {}, b"", b"").issuer is None


# -- audiences -------------------------------------------------------------------------------------

def test_audiences_are_the_issuer_and_its_endpoints_except_for_fapi2() -> None:
    assert audiences(client(EC), ISSUER) == (ISSUER, f"{ISSUER}/oauth/token", f"{ISSUER}/oauth/par")
    assert audiences(client(EC, profile=FAPI2), ISSUER) == (ISSUER,)


# -- verify ----------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:EdDSA is deprecated")
@pytest.mark.parametrize(("key", "alg"), [(EC, "ES256"), (RSA, "PS256"), (OKP, "EdDSA"), (OKP, "Ed25519")])
def test_an_assertion_signed_by_a_registered_key_authenticates(aws: None, clock: Any, key: dict[str, Any],
                                                               alg: str) -> None:
    verify(parse(assertion(key, "svc", START, alg=alg)), client(EC, RSA, OKP), ISSUER)


def test_without_kid_every_key_of_the_type_is_tried(aws: None, clock: Any) -> None:
    token = assertion({k: v for k, v in EC.items() if k != "kid"}, "svc", START)
    verify(parse(token), client(OTHER_EC, EC), ISSUER)


@pytest.mark.parametrize("alg", ["none", "HS256", "RS256", None, ["ES256"]])
def test_algorithms_outside_es256_ps256_eddsa_are_refused(clock: Any, alg: Any) -> None:
    token = compact({"alg": alg}, {"iss": "svc"})
    assert rejected(token, client(EC)) == f"alg {str(alg)[:20]!r} not accepted"


def test_rs256_signed_for_real_is_still_refused(clock: Any) -> None:
    # RS256 is an RSA key's algorithm the client could register; FAPI 2.0 5.4 allows only PS256.
    token = assertion(RSA, "svc", START, alg="RS256")
    assert rejected(token, client(RSA)) == "alg 'RS256' not accepted"


def test_a_crit_header_is_refused(clock: Any) -> None:
    token = assertion(EC, "svc", START, header={"crit": ["b64"], "b64": True})
    assert rejected(token, client(EC)) == "crit header not understood (RFC 7515 4.1.11)"


def test_a_non_string_kid_is_refused(clock: Any) -> None:
    assert rejected(compact({"alg": "ES256", "kid": 1}, {}), client(EC)) == "kid is not a string"


def test_a_client_without_keys_cannot_use_assertions(clock: Any) -> None:
    assert rejected(assertion(EC, "svc", START), client()) == "client has no registered keys"


@pytest.mark.parametrize(("key", "registered"), [
    (OTHER_EC, [EC]),                                  # an unregistered key
    ({**OTHER_EC, "kid": "ec-1"}, [EC]),               # an unregistered key under a registered kid
    ({**EC, "kid": "ec-2"}, [EC, {**OTHER_EC}]),       # the right key, a kid naming another key
])
def test_only_a_registered_key_named_by_kid_counts(clock: Any, key: dict[str, Any],
                                                  registered: list[dict[str, Any]]) -> None:
    assert rejected(assertion(key, "svc", START), client(*registered)) == "signature not made by a registered key"


def test_a_tampered_payload_breaks_the_signature(clock: Any) -> None:
    head, _, sig = assertion(EC, "svc", START).split(".")
    forged = assertion(OTHER_EC, "svc", START, jti="forged").split(".")[1]
    assert rejected(f"{head}.{forged}.{sig}", client(EC)) == "signature not made by a registered key"


@pytest.mark.parametrize("claims", [{"iss": "other"}, {"sub": "other"}, {"iss": None}, {"sub": None}])
def test_iss_and_sub_must_both_be_the_client(clock: Any, claims: dict[str, Any]) -> None:
    assert rejected(assertion(EC, "svc", START, **claims), client(EC)) == "iss and sub must both be the client_id"


@pytest.mark.parametrize(("aud", "reason"), [
    ([ISSUER], f'aud ["{ISSUER}"] is not the issuer identifier'),
    ([ISSUER, "https://elsewhere.example"], f'aud ["{ISSUER}", "https://elsewhere.example"] is not the issuer identifier'),
    ("https://elsewhere.example", 'aud "https://elsewhere.example" is not the issuer identifier'),
    (f"{ISSUER}/oauth/introspect", f'aud "{ISSUER}/oauth/introspect" is not the issuer identifier'),
    (None, "aud null is not the issuer identifier"),
])
def test_aud_must_be_one_string_naming_this_server(clock: Any, aud: Any, reason: str) -> None:
    assert rejected(assertion(EC, "svc", START, aud=aud), client(EC)) == reason


@pytest.mark.parametrize("endpoint", ["/oauth/token", "/oauth/par"])
def test_endpoint_audiences_are_for_non_fapi_clients_only(aws: None, clock: Any, endpoint: str) -> None:
    verify(parse(assertion(EC, "svc", START, aud=ISSUER + endpoint)), client(EC), ISSUER)
    assert rejected(assertion(EC, "svc", START, aud=ISSUER + endpoint), client(EC, profile=FAPI2)) == (
        f'aud "{ISSUER}{endpoint}" is not the issuer identifier')


@pytest.mark.parametrize(("exp", "reason"), [
    (None, "exp is required"),
    ("soon", "exp is required"),
    (START - LEEWAY, "assertion expired"),
    (START + MAX_LIFETIME + LEEWAY + 1, f"exp more than {MAX_LIFETIME} s ahead"),
])
def test_exp_is_required_live_and_near(clock: Any, exp: Any, reason: str) -> None:
    assert rejected(assertion(EC, "svc", START, exp=exp), client(EC)) == reason


@pytest.mark.parametrize("exp", [START - LEEWAY + 1, START + MAX_LIFETIME + LEEWAY])
def test_exp_at_the_edges_is_accepted(aws: None, clock: Any, exp: int) -> None:
    verify(parse(assertion(EC, "svc", START, exp=exp)), client(EC), ISSUER)


@pytest.mark.parametrize("name", ["nbf", "iat"])
def test_nbf_and_iat_may_not_lie_ahead_beyond_the_skew(aws: None, clock: Any, name: str) -> None:
    verify(parse(assertion(EC, "svc", START, **{name: START + MAX_FUTURE_SKEW})), client(EC), ISSUER)
    token = assertion(EC, "svc", START, **{name: START + MAX_FUTURE_SKEW + 1})
    assert rejected(token, client(EC)) == f"{name} is in the future"
    assert rejected(assertion(EC, "svc", START, **{name: "yesterday"}), client(EC)) == f"{name} is not a number"


@pytest.mark.parametrize("name", ["nbf", "iat"])
def test_nbf_and_iat_10_s_ahead_pass_even_with_no_leeway(aws: None, clock: Any, monkeypatch: pytest.MonkeyPatch,
                                                        name: str) -> None:
    # FAPI 2.0 5.3.2.1 item 13: an authorization server accepts iat/nbf up to 10 s in the future.
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_LEEWAY", "0")
    caches.reset()
    verify(parse(assertion(EC, "svc", START, **{name: START + 10})), client(EC), ISSUER)
    assert rejected(assertion(EC, "svc", START, **{name: START + 11}), client(EC)) == f"{name} is in the future"


def test_iat_is_optional(aws: None, clock: Any) -> None:
    verify(parse(assertion(EC, "svc", START, iat=None)), client(EC), ISSUER)


@pytest.mark.parametrize("jti", [None, "", 7, "j" * 201])
def test_jti_is_a_short_non_empty_string(clock: Any, jti: Any) -> None:
    assert rejected(assertion(EC, "svc", START, jti=jti), client(EC)) == "jti is required"


def test_a_jti_is_single_use_per_client_until_it_expires(aws: None, clock: Any) -> None:
    token = assertion(EC, "svc", START, jti="once")
    verify(parse(token), client(EC), ISSUER)
    assert rejected(token, client(EC)) == "jti already used (replayed assertion)"
    # Another client may use the same jti.
    verify(parse(assertion(EC, "svc2", START, jti="once")), client(EC, client_id="svc2"), ISSUER)
    # Past exp + leeway the assertion is expired, not replayed; the jti is then forgotten.
    clock.advance(60 + LEEWAY)
    assert rejected(token, client(EC)) == "assertion expired"
    later = assertion(EC, "svc", START + 60 + LEEWAY, jti="once")
    verify(parse(later), client(EC), ISSUER)
