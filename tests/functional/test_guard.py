"""The bearer guard (RFC 6750, RFC 9068 section 4) on a mounted route: every error's whole response."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.bearer_requests import (
    NO_CREDENTIALS,
    assert_invalid_token,
    bearer,
    call,
    challenge,
    claims_now,
    current_header,
    error_headers,
    event,
    issue,
    problem,
    seed_client,
)
from tests.demo import AUDIENCE, ISSUER


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def segment(value: dict[str, Any]) -> str:
    return b64(json.dumps(value).encode())


def signed(header: dict[str, Any], claims: dict[str, Any]) -> str:
    """A token signed by the real current key with any header and claims we like."""
    from authgate.tokens.current_signer import current_signer
    from authgate.tokens.jws import compact

    return compact(header, claims, current_signer())


# ------------------------------------------------------------------ success


def test_valid_token_passes_and_sets_request_state(keys: None) -> None:
    token = issue().token
    status, headers, body = call(event(headers=bearer(token)))
    assert (status, body) == (200, {"sub": "demo-service", "client_id": "demo-service", "tenant": "demo",
                                    "error_format": "problem"})
    assert headers == {"Content-Type": ["application/json"], "x-request-id": ["req-1"]}


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_scheme_is_case_insensitive(keys: None, scheme: str) -> None:
    token = issue().token
    assert call(event(headers={"Authorization": [f"{scheme} {token}"]}))[0] == 200


def test_issued_token_is_rfc9068(keys: None, clock: ManualClock) -> None:
    import jwt

    issued = issue(grant_id="grant-1")
    header = jwt.get_unverified_header(issued.token)
    claims = jwt.decode(issued.token, options={"verify_signature": False})
    now = int(clock())
    assert set(header) == {"typ", "alg", "kid"} and header["typ"] == "at+jwt" and header["alg"] == "RS256"
    assert claims == {"iss": ISSUER, "sub": "demo-service", "aud": AUDIENCE, "exp": now + 900, "iat": now,
                      "jti": issued.jti, "client_id": "demo-service", "scope": "charges:read charges:write",
                      "tenant": "demo", "grant_id": "grant-1"}
    assert issued.expires_in == 900 and issued.scope == "charges:read charges:write"


# ------------------------------------------------------------------ no credentials / malformed


@pytest.mark.parametrize("headers", [{}, {"Authorization": ["Basic ZGVtbzpkZW1v"]}, {"Authorization": [""]}])
def test_no_bearer_credentials_is_401_without_error(keys: None, headers: dict[str, list[str]]) -> None:
    detail = "The request carries no credentials; send Authorization: Bearer <token>."
    assert call(event(headers=headers)) == (
        401, error_headers(NO_CREDENTIALS),
        problem("unauthenticated", "Authentication required", 401, detail))


def test_token_only_in_query_is_an_unsupported_method_401_without_error(keys: None) -> None:
    detail = "The access_token parameter is not accepted; send Authorization: Bearer <token>."
    assert call(event(query={"access_token": [issue().token]})) == (
        401, error_headers(NO_CREDENTIALS),
        problem("unauthenticated", "Authentication required", 401, detail))


TOKEN68 = "The Authorization header must be Bearer followed by exactly one token (token68 syntax)."
TWO_METHODS = "The access token was sent by more than one method; send it only in the Authorization header."


@pytest.mark.parametrize(("value", "detail"), [
    ("Bearer", "The Bearer credentials are empty."),
    ("Bearer    ", "The Bearer credentials are empty."),
    ("Bearer a b", TOKEN68),
    ("Bearer abc,def", TOKEN68),
    ("Bearer ab=c", TOKEN68),
    ("Bearer a\"b", TOKEN68),
    ("Bearer\tabc", TOKEN68),
    ("Bearer tökén", TOKEN68),
])
def test_malformed_authorization_is_400_invalid_request(keys: None, value: str, detail: str) -> None:
    assert call(event(headers={"Authorization": [value]})) == (
        400, error_headers(challenge("invalid_request", detail)),
        problem("invalid_request", "Invalid request", 400, detail))


def test_two_authorization_headers_is_invalid_request(keys: None) -> None:
    token = issue().token
    detail = "The request carries more than one Authorization header."
    assert call(event(headers={"Authorization": [f"Bearer {token}", f"Bearer {token}"]})) == (
        400, error_headers(challenge("invalid_request", detail)),
        problem("invalid_request", "Invalid request", 400, detail))


def test_token_in_header_and_query_is_invalid_request(keys: None) -> None:
    token = issue().token
    assert call(event(headers=bearer(token), query={"access_token": [token]})) == (
        400, error_headers(challenge("invalid_request", TWO_METHODS)),
        problem("invalid_request", "Invalid request", 400, TWO_METHODS))


def test_token_in_header_and_form_body_is_invalid_request(keys: None) -> None:
    token = issue().token
    evt = event("POST", headers={**bearer(token), "Content-Type": ["application/x-www-form-urlencoded"]},
                body=f"access_token={token}")
    assert call(evt) == (400, error_headers(challenge("invalid_request", TWO_METHODS)),
                         problem("invalid_request", "Invalid request", 400, TWO_METHODS))


# ------------------------------------------------------------------ invalid_token


def test_expired_token_is_invalid_token(keys: None, clock: ManualClock) -> None:
    token = issue().token
    clock.advance(900 + 120 + 1)
    assert_invalid_token(event(headers=bearer(token)), "The access token expired.")


def test_revoked_token_and_revoked_grant_are_invalid_token(keys: None, clock: ManualClock) -> None:
    from authgate.stores.revocations import RevocationStore

    by_jti, by_grant, other = issue(grant_id="g-1"), issue(grant_id="g-2"), issue(grant_id="g-3")
    RevocationStore().revoke_jti(by_jti.jti, int(clock()) + 1020)
    RevocationStore().revoke_grant("g-2", int(clock()) + 1020)
    assert_invalid_token(event(headers=bearer(by_jti.token)), "The access token was revoked.")
    assert_invalid_token(event(headers=bearer(by_grant.token)), "The access token was revoked.")
    assert call(event(headers=bearer(other.token)))[0] == 200


def test_revocation_is_one_batch_get(keys: None, clock: ManualClock) -> None:
    import boto3

    from authgate.stores.revocations import RevocationStore

    client = boto3.client("dynamodb", region_name="us-east-1")
    calls: list[str] = []
    client.meta.events.register("before-call.dynamodb.*", lambda model, **_: calls.append(model.name))
    assert RevocationStore(client).is_revoked("jti-1", "grant-1", int(clock())) is False
    assert calls == ["BatchGetItem"]


def test_expired_revocation_record_no_longer_counts(keys: None, clock: ManualClock) -> None:
    from authgate.stores.revocations import RevocationStore

    store = RevocationStore()
    store.revoke_jti("j", int(clock()) + 10)
    assert store.is_revoked("j", None, int(clock())) is True
    assert store.is_revoked("j", None, int(clock()) + 11) is False  # moto never deletes TTL items


@pytest.mark.parametrize(("claims", "detail"), [
    ({"iss": "https://evil.example"}, "The token was issued by another issuer."),
    ({"iss": ISSUER + "/"}, "The token was issued by another issuer."),
    ({"aud": "https://other.example/api"}, "The token is not meant for this resource (aud)."),
    ({"aud": [ISSUER]}, "The token is not meant for this resource (aud)."),
    ({"jti": None}, "The token lacks the jti claim."),
    ({"client_id": None}, "The token lacks the client_id claim."),
    ({"exp": "tomorrow"}, "The exp claim is not a NumericDate."),
    ({"scope": ["charges:read"]}, "The token claims have the wrong types."),
])
def test_wrong_claims_are_invalid_token(keys: None, clock: ManualClock, claims: dict[str, Any], detail: str) -> None:
    token = signed(current_header(), claims_now(int(clock()), **claims))
    assert_invalid_token(event(headers=bearer(token)), detail)


def test_audience_list_containing_ours_is_accepted(keys: None, clock: ManualClock) -> None:
    token = signed(current_header(), claims_now(int(clock()), aud=["https://other.example", AUDIENCE]))
    assert call(event(headers=bearer(token)))[0] == 200


@pytest.mark.parametrize("typ", ["at+jwt", "AT+JWT", "application/at+jwt", "Application/At+JWT"])
def test_typ_accepted_forms(keys: None, clock: ManualClock, typ: str) -> None:
    assert call(event(headers=bearer(signed(current_header(typ=typ), claims_now(int(clock()))))))[0] == 200


@pytest.mark.parametrize("typ", ["JWT", "jwt", "at+jwt; x", "application/jwt", None])
def test_wrong_typ_is_invalid_token(keys: None, clock: ManualClock, typ: str | None) -> None:
    token = signed(current_header(typ=typ), claims_now(int(clock())))
    assert_invalid_token(event(headers=bearer(token)), "The token is not an access token (typ must be at+jwt).")


def test_bad_signature_is_invalid_token(keys: None) -> None:
    head, payload, signature = issue().token.split(".")
    tampered = json.loads(base64.urlsafe_b64decode(payload + "=="))
    tampered["scope"] = "charges:read charges:write charges:refund"
    assert_invalid_token(event(headers=bearer(f"{head}.{segment(tampered)}.{signature}")),
                         "The token signature is invalid.")


def test_unknown_kid_is_invalid_token_and_reload_is_bounded(keys: None, clock: ManualClock) -> None:
    from authgate.tokens.validator import default_validator

    assert call(event(headers=bearer(issue().token)))[0] == 200
    loads = default_validator().keys.loads
    for n in range(50):
        token = signed(current_header(kid=f"junk-{n}"), claims_now(int(clock())))
        assert_invalid_token(event(headers=bearer(token)), "The token was signed by an unknown key.")
    # 50 junk kids within the refresh interval cost at most one reload of the keys table.
    assert default_validator().keys.loads - loads <= 1


@pytest.mark.parametrize("token", ["abc", "a.b", "a.b.c.d", "bm90anNvbg.e30.e30", "W10.e30.e30", "!!!.e30.", "x" * 5000])
def test_not_a_jwt_is_invalid_token(keys: None, token: str) -> None:
    if not token.startswith("!"):
        assert_invalid_token(event(headers=bearer(token)), "The access token is not a JWT.")
    else:  # not even token68: the request is malformed
        assert call(event(headers=bearer(token)))[0] == 400


def test_header_without_alg_is_invalid_token(keys: None) -> None:
    assert_invalid_token(event(headers=bearer("e30.e30.")), "The token header names no algorithm.")


# ------------------------------------------------------------------ algorithm confusion


def test_hs256_signed_with_the_public_key_is_rejected(keys: None, clock: ManualClock) -> None:
    from authgate.stores.signing_keys import KeyStore

    record = next(k for k in KeyStore().published() if k.state == "current")
    head = segment(current_header(alg="HS256"))
    body = segment(claims_now(int(clock())))
    for secret in (record.public_jwk.encode(), json.loads(record.public_jwk)["n"].encode()):
        mac = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
        assert_invalid_token(event(headers=bearer(f"{head}.{body}.{b64(mac)}")),
                             "The algorithm HS256 is not accepted.")


@pytest.mark.parametrize("alg", ["none", "None", "NONE"])
def test_alg_none_is_rejected(keys: None, clock: ManualClock, alg: str) -> None:
    token = f"{segment(current_header(alg=alg))}.{segment(claims_now(int(clock())))}."
    assert_invalid_token(event(headers=bearer(token)), f"The algorithm {alg} is not accepted.")


def test_alg_not_matching_the_key_is_rejected(keys: None, clock: ManualClock) -> None:
    token = signed(current_header(alg="ES256"), claims_now(int(clock())))
    assert_invalid_token(event(headers=bearer(token)), "The algorithm ES256 does not match the signing key.")


@pytest.mark.parametrize("parameter", ["jku", "x5u", "jwk", "x5c", "crit"])
def test_key_naming_headers_are_rejected_even_with_a_good_signature(keys: None, clock: ManualClock, parameter: str) -> None:
    value: Any = {"jku": "https://evil.example/jwks.json", "x5u": "https://evil.example/cert.pem",
                  "jwk": {"kty": "oct", "k": "AAAA"}, "x5c": ["MIIB"], "crit": ["exp"]}[parameter]
    token = signed(current_header(**{parameter: value}), claims_now(int(clock())))
    assert_invalid_token(event(headers=bearer(token)), f"The token header parameter {parameter} is not accepted.")


def test_token_signed_by_an_attacker_key_with_our_kid_is_rejected(keys: None, clock: ManualClock) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    from authgate.tokens.jws import compact
    from authgate.tokens.local_backend import LocalSigner

    attacker = LocalSigner(current_header()["kid"], "RS256", rsa.generate_private_key(65537, 2048))
    token = compact(current_header(), claims_now(int(clock())), attacker)
    assert_invalid_token(event(headers=bearer(token)), "The token signature is invalid.")


# ------------------------------------------------------------------ clock skew


@pytest.mark.parametrize(("claims", "ok"), [
    ({"iat": 90}, True),                          # issuer's clock 90 s ahead
    ({"exp": -90, "iat": -990}, True),            # expired 90 s ago: within the 120 s leeway
    ({"nbf": 90}, True),
    ({"iat": 600}, False),                        # 10 minutes ahead
    ({"exp": -600, "iat": -1500}, False),         # expired 10 minutes ago
    ({"nbf": 600}, False),
])
def test_clock_skew_leeway(keys: None, clock: ManualClock, claims: dict[str, int], ok: bool) -> None:
    now = int(clock())
    values = claims_now(now, **{k: now + v for k, v in claims.items()})
    if "exp" not in claims:
        values["exp"] = values["iat"] + 900
    status, _, body = call(event(headers=bearer(signed(current_header(), values))))
    if ok:
        assert status == 200
    else:
        detail = {"iat": "The token was issued in the future (iat).", "exp": "The access token expired.",
                  "nbf": "The token is not valid yet (nbf)."}[next(iter(claims))]
        assert (status, body) == (401, problem("invalid_token", "Invalid access token", 401, detail))


def test_leeway_is_configurable(keys: None, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    token = issue().token
    monkeypatch.setenv("AUTHGATE_LEEWAY", "0")
    caches.reset()
    clock.advance(901)
    assert_invalid_token(event(headers=bearer(token)), "The access token expired.")


# ------------------------------------------------------------------ scope, client


def test_missing_scope_is_403_insufficient_scope(keys: None) -> None:
    token = issue(scope="charges:read").token
    detail = "The access token lacks the scope charges:write."
    assert call(event("POST", headers=bearer(token))) == (
        403, error_headers(challenge("insufficient_scope", detail, "charges:write")),
        problem("insufficient_scope", "Insufficient scope", 403, detail))


def test_insufficient_scope_uses_the_clients_legacy_shape(keys: None) -> None:
    from authgate.tokens.access_token import issue_access_token

    seed_client("demo-legacy-a", error_format="legacy-a")
    token = issue_access_token(issuer=ISSUER, subject="demo-legacy-a", client_id="demo-legacy-a",
                               tenant="demo", scope="charges:read").token
    status, headers, body = call(event("POST", headers=bearer(token)))
    assert status == 403 and body["code"] == "insufficient_scope" and body["status"] == 403
    assert "type" not in body  # legacy variant A, not problem+json
    assert headers["WWW-Authenticate"] == [challenge("insufficient_scope",
                                                     "The access token lacks the scope charges:write.",
                                                     "charges:write")]


@pytest.mark.parametrize("environment", [None, "staging"])
def test_token_of_an_unknown_or_other_environment_client_is_invalid_token(
        keys: None, environment: str | None) -> None:
    from authgate.tokens.access_token import issue_access_token

    if environment:
        seed_client("staging-web", environment=environment)
    token = issue_access_token(issuer=ISSUER, subject="x", client_id="staging-web", tenant="demo",
                               scope="charges:read").token
    assert_invalid_token(event(headers=bearer(token)), "The client this token was issued to is not registered.")


def test_storage_outage_during_revocation_check_is_503(keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from botocore.exceptions import ClientError

    from authgate.aws import dynamodb

    token = issue().token
    client = dynamodb()

    def throttled(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
                          "BatchGetItem")

    monkeypatch.setattr(client, "batch_get_item", throttled)  # AWS fault injection, not our code
    status, headers, body = call(event(headers=bearer(token)))
    assert status == 503 and headers["Retry-After"] == ["1"] and body["code"] == "service_unavailable"


# ------------------------------------------------------------------ the verified-token cache


def test_a_token_is_verified_once_then_remembered(keys: None, clock: ManualClock) -> None:
    from authgate.tokens.validator import default_validator

    token = issue().token
    first = default_validator().validate(token, issuer=ISSUER, audience=AUDIENCE, now=int(clock()))
    again = default_validator().validate(token, issuer=ISSUER, audience=AUDIENCE, now=int(clock()))
    assert again is first
    # The issuer and audience are part of what was verified: another one is checked afresh.
    with pytest.raises(Exception, match="aud"):
        default_validator().validate(token, issuer=ISSUER, audience=ISSUER + "/other", now=int(clock()))


def test_a_remembered_token_still_expires(keys: None, clock: ManualClock) -> None:
    token = issue().token
    assert call(event(headers=bearer(token)))[0] == 200
    clock.advance(900 + 120 + 1)
    assert_invalid_token(event(headers=bearer(token)), "The access token expired.")


def test_a_remembered_token_is_still_checked_for_revocation(keys: None, clock: ManualClock) -> None:
    from authgate.stores.revocations import RevocationStore

    issued = issue(grant_id="g-9")
    assert call(event(headers=bearer(issued.token)))[0] == 200
    RevocationStore().revoke_grant("g-9", int(clock()) + 1020)
    assert_invalid_token(event(headers=bearer(issued.token)), "The access token was revoked.")


def test_a_remembered_token_of_a_withdrawn_key_is_refused(keys: None, clock: ManualClock) -> None:
    from authgate.tokens.rotation import destroy_all

    token = issue().token
    assert call(event(headers=bearer(token)))[0] == 200
    destroy_all(int(clock()))
    clock.advance(301)  # the published keys are reloaded after jwks_max_age
    assert_invalid_token(event(headers=bearer(token)), "The token was signed by an unknown key.")


def test_the_cache_is_bounded(keys: None, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate.tokens import validator as validator_module

    monkeypatch.setattr(validator_module, "VERIFIED_CACHE_SIZE", 2)
    validator = validator_module.default_validator()
    tokens = [issue().token for _ in range(3)]
    for token in tokens:
        validator.validate(token, issuer=ISSUER, audience=AUDIENCE, now=int(clock()))
    assert [entry[0] for entry in validator._verified] == tokens[1:]
