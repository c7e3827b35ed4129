"""tokens.validator (RFC 9068 4): tokens made by PyJWT (an outside implementation) judged locally; verified ones remembered."""

from __future__ import annotations

import json
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from authgate.errors import ApiError
from authgate.stores.signing_keys import CURRENT, KeyRecord
from authgate.tokens import jwk
from authgate.tokens.principal import Principal
from authgate.tokens.validator import AccessTokenValidator
from authgate.tokens.verification_keys import KeyCache

NOW = 1_750_000_000
ISSUER = "https://auth.example.com"
AUDIENCE = ISSUER + "/charges"
CLAIMS = {"iss": ISSUER, "sub": "alice", "aud": AUDIENCE, "exp": NOW + 900, "iat": NOW, "jti": "j1",
          "client_id": "web", "scope": "charges:read charges:write", "tenant": "demo", "grant_id": "g1"}


class Keys:
    """The published keys: one ES256 key per kid, replaceable (a rotation, a reload)."""

    def __init__(self) -> None:
        self.private: dict[str, Any] = {}
        self.rotate("k1")

    def rotate(self, kid: str) -> None:
        self.private[kid] = ec.generate_private_key(ec.SECP256R1())

    def __call__(self) -> list[KeyRecord]:
        return [KeyRecord(kid, CURRENT, "ES256", "local", json.dumps(jwk.public_jwk(k.public_key(), kid, "ES256")),
                          NOW - 100, NOW - 100) for kid, k in self.private.items()]

    def token(self, claims: dict[str, Any] | None = None, headers: dict[str, Any] | None = None,
              kid: str = "k1", alg: str = "ES256") -> str:
        head = {"typ": "at+jwt", "kid": kid, **(headers or {})}
        key: Any = self.private[kid] if alg == "ES256" else "a-shared-secret-of-32-bytes-long!"
        return jwt.encode({**CLAIMS, **(claims or {})}, key, algorithm=alg, headers=head)


@pytest.fixture
def keys() -> Keys:
    return Keys()


def validator(keys: Keys, max_age: int = 300) -> AccessTokenValidator:
    return AccessTokenValidator(KeyCache(keys, max_age), leeway=120)


def refused(v: AccessTokenValidator, token: str, now: int = NOW) -> str:
    with pytest.raises(ApiError) as info:
        v.verify(token, issuer=ISSUER, audience=AUDIENCE, now=now)
    error = info.value
    assert (error.code, error.status) == ("invalid_token", 401)
    assert error.headers["WWW-Authenticate"].startswith('Bearer realm="api", error="invalid_token"')
    return error.detail


def test_a_valid_token_gives_its_principal(keys: Keys) -> None:
    principal = validator(keys).validate(keys.token({"cnf": {"jkt": "thumb"}}), issuer=ISSUER, audience=AUDIENCE,
                                         now=NOW)
    assert principal == Principal(subject="alice", client_id="web", tenant="demo",
                                  scopes=frozenset({"charges:read", "charges:write"}), jti="j1", grant_id="g1",
                                  expires_at=NOW + 900, jkt="thumb", issued_at=NOW)


@pytest.mark.parametrize(("change", "detail"), [
    ({"headers": {"jku": "https://evil.example/jwks"}}, "The token header parameter jku is not accepted."),
    ({"headers": {"typ": "JWT"}}, "The token is not an access token (typ must be at+jwt)."),
    ({"headers": {"typ": "application/at+jwt"}}, None),
    ({"kid": "k1", "alg": "HS256"}, "The algorithm HS256 is not accepted."),
    ({"claims": {"iss": "https://other.example"}}, "The token was issued by another issuer."),
    ({"claims": {"aud": ["https://other.example/api"]}}, "The token is not meant for this resource (aud)."),
    ({"claims": {"aud": ["https://other.example/api", AUDIENCE]}}, None),
    ({"claims": {"exp": NOW - 120}}, "The access token expired."),  # not on or after exp (RFC 7519 4.1.4)
    ({"claims": {"exp": NOW - 119}}, None),  # within the leeway
    ({"claims": {"iat": NOW + 121}}, "The token was issued in the future (iat)."),
    ({"claims": {"nbf": NOW + 121}}, "The token is not valid yet (nbf)."),
    ({"claims": {"exp": "tomorrow"}}, "The exp claim is not a NumericDate."),
    ({"claims": {"scope": ["charges:read"]}}, "The token claims have the wrong types."),
    ({"claims": {"cnf": {"x5t#S256": "x"}}}, "The token's cnf claim is not a DPoP key thumbprint (RFC 9449 6.1)."),
    ({"claims": {"username": ["alice"]}}, "The token's username claim is not a string."),
    ({"claims": {"acr": 2}}, "The token's acr or auth_time claim has the wrong type (RFC 9068 2.2.1)."),
    ({"claims": {"auth_time": "yesterday"}}, "The token's acr or auth_time claim has the wrong type (RFC 9068 2.2.1)."),
    # RFC 8693 4.1: act is an object with a string sub, its earlier actors nested inside, at most 4 deep.
    ({"claims": {"act": {"sub": "https://mcp.example/mcp", "act": {"sub": "agent"}}}}, None),
    ({"claims": {"act": "https://mcp.example/mcp"}}, "The token's act claim is not a chain of actors (RFC 8693 4.1)."),
    ({"claims": {"act": {"client_id": "x"}}}, "The token's act claim is not a chain of actors (RFC 8693 4.1)."),
    ({"claims": {"act": {"sub": "a", "act": {"sub": "b", "act": {"sub": "c", "act": {"sub": "d", "act": {
        "sub": "e"}}}}}}}, "The token's act claim is not a chain of actors (RFC 8693 4.1)."),
])
def test_each_check_of_rfc_9068_4(keys: Keys, change: dict[str, Any], detail: str | None) -> None:
    token = keys.token(**change)
    if detail is None:
        assert validator(keys).verify(token, issuer=ISSUER, audience=AUDIENCE, now=NOW).subject == "alice"
    else:
        assert refused(validator(keys), token) == detail


def test_acr_and_auth_time_reach_the_principal(keys: Keys) -> None:
    """RFC 9068 2.2.1: how and when the user signed in, for the resource's step-up decision (RFC 9470)."""
    principal = validator(keys).verify(keys.token(claims={"acr": "mfa", "auth_time": NOW - 60}), issuer=ISSUER,
                                       audience=AUDIENCE, now=NOW)
    assert (principal.acr, principal.auth_time, principal.on_behalf_of_user) == ("mfa", NOW - 60, True)
    service = validator(keys).verify(keys.token(claims={"grant_id": None, "sub": "svc", "client_id": "svc"}),
                                     issuer=ISSUER, audience=AUDIENCE, now=NOW)
    assert (service.acr, service.auth_time, service.on_behalf_of_user) == ("", None, False)


def test_a_persons_username_reaches_the_principal_beside_their_user_id(keys: Keys) -> None:
    """A person's token: sub their user_id, username their username; one of before: sub the username."""
    now = validator(keys).verify(keys.token(claims={"sub": "usr_alice", "username": "alice"}), issuer=ISSUER,
                                 audience=AUDIENCE, now=NOW)
    before = validator(keys).verify(keys.token(), issuer=ISSUER, audience=AUDIENCE, now=NOW)
    assert (now.subject, now.username, now.username_of_person) == ("usr_alice", "alice", "alice")
    assert (before.subject, before.username, before.username_of_person) == ("alice", "", "alice")


def test_an_exchanged_tokens_actors_reach_the_principal(keys: Keys) -> None:
    act = {"sub": "https://reports.example", "act": {"sub": "https://mcp.example/mcp"}}
    principal = validator(keys).verify(keys.token({"act": act}), issuer=ISSUER, audience=AUDIENCE, now=NOW)
    assert principal.act == act


def test_a_missing_claim_is_named(keys: Keys) -> None:
    claims = {k: v for k, v in CLAIMS.items() if k != "tenant"}
    token = jwt.encode(claims, keys.private["k1"], algorithm="ES256", headers={"typ": "at+jwt", "kid": "k1"})
    assert refused(validator(keys), token) == "The token lacks the tenant claim."


def test_unknown_kid_bad_signature_and_not_a_jwt(keys: Keys) -> None:
    v = validator(keys)
    assert refused(v, keys.token(kid="k1", headers={"kid": "k9"})) == "The token was signed by an unknown key."
    head, body, _ = keys.token().split(".")
    other = keys.token({"sub": "mallory"}).split(".")[2]
    assert refused(v, f"{head}.{body}.{other}") == "The token signature is invalid."
    assert refused(v, "not.a-jwt") == "The access token is not a JWT."
    assert refused(v, "a" * 5000) == "The access token is not a JWT."


def test_a_verified_token_is_remembered_until_its_key_changes(keys: Keys) -> None:
    v = validator(keys, max_age=300)
    token = keys.token()
    first = v.validate(token, issuer=ISSUER, audience=AUDIENCE, now=NOW)
    assert v.validate(token, issuer=ISSUER, audience=AUDIENCE, now=NOW + 10) is first
    # The kid now names another key (a key withdrawn and replaced): the next reload makes it a full check.
    keys.rotate("k1")
    assert refused(v, token, now=NOW + 300) == "The token signature is invalid."
    with pytest.raises(ApiError):
        v.validate(token, issuer=ISSUER, audience=AUDIENCE, now=NOW + 300)


def test_a_remembered_token_still_expires(keys: Keys) -> None:
    v = validator(keys, max_age=3600)
    token = keys.token()
    v.validate(token, issuer=ISSUER, audience=AUDIENCE, now=NOW)
    with pytest.raises(ApiError) as info:
        v.validate(token, issuer=ISSUER, audience=AUDIENCE, now=NOW + 900 + 121)
    assert info.value.detail == "The access token expired."


def test_a_remembered_token_is_remembered_for_its_issuer_and_audience_only(keys: Keys) -> None:
    v = validator(keys)
    token = keys.token()
    v.validate(token, issuer=ISSUER, audience=AUDIENCE, now=NOW)
    with pytest.raises(ApiError) as info:
        v.validate(token, issuer=ISSUER, audience=ISSUER + "/other", now=NOW)
    assert info.value.detail == "The token is not meant for this resource (aud)."
