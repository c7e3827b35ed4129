"""DPoP at the token endpoint (RFC 9449 5, 10): every grant binds to the proof key; every attack refused.

Proofs are made by joserfc (tests/dpop_support.py). Whole responses are asserted.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import boto3
import pytest

from tests.demo import CHALLENGE, ISSUER, SECRETS, SPA_REDIRECT, VERIFIER, WEB_REDIRECT
from tests.dpop_support import DpopKey, hs256_proof, unsigned_proof
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    basic,
    body_of,
    claims_of,
    headers_of,
)

TOKEN_URL = f"{ISSUER}/oauth/token"
NO_STORE = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}


def post(tokens: TokenClient, fields: list[tuple[str, str]], proofs: list[str], client_id: str = "demo-service",
         path: str = "/oauth/token") -> dict[str, Any]:
    headers = [("DPoP", p) for p in proofs]
    if client_id in SECRETS:
        return tokens.post(fields, auth=basic(client_id, SECRETS[client_id]), headers=headers, path=path)
    return tokens.post(fields + [("client_id", client_id)], headers=headers, path=path)


CC = [("grant_type", "client_credentials")]


def assert_dpop_token(result: dict[str, Any], key: DpopKey, refresh: bool = False) -> dict[str, Any]:
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    body = body_of(result)
    assert (result["statusCode"], headers, body["token_type"], "refresh_token" in body) == (
        200, NO_STORE, "DPoP", refresh)
    assert claims_of(body["access_token"])["cnf"] == {"jkt": key.jkt}
    return body


def assert_invalid_proof(result: dict[str, Any], description: str) -> None:
    assert_error(result, 400, "invalid_dpop_proof", description)


def new_code(client_id: str, redirect_uri: str, dpop_jkt: str | None = None) -> str:
    from authgate.stores.codes import CodeStore

    return CodeStore().create(client_id=client_id, tenant_id="demo", redirect_uri=redirect_uri,
                              code_challenge=CHALLENGE, code_challenge_method="S256",
                              scope="charges:read", subject="alice", dpop_jkt=dpop_jkt)


def exchange_fields(code: str, redirect_uri: str) -> list[tuple[str, str]]:
    return [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect_uri),
            ("code_verifier", VERIFIER)]


# --------------------------------------------------------------------------- every grant binds

@pytest.mark.parametrize("alg", ["ES256", "EdDSA", "RS256", "PS256"])
def test_client_credentials_with_a_proof_is_a_dpop_token(tokens: TokenClient, alg: str) -> None:
    key = DpopKey(alg)
    body = assert_dpop_token(post(tokens, CC, [key.proof("POST", TOKEN_URL)]), key)
    assert body["scope"] == "charges:read charges:write"


def test_without_a_proof_the_token_stays_bearer_and_unbound(tokens: TokenClient) -> None:
    body = body_of(tokens.client_credentials())
    assert body["token_type"] == "Bearer" and "cnf" not in claims_of(body["access_token"])


def test_code_of_a_public_client_binds_its_refresh_token_to_the_key(tokens: TokenClient) -> None:
    key = DpopKey()
    first = assert_dpop_token(post(tokens, exchange_fields(new_code("demo-spa", SPA_REDIRECT), SPA_REDIRECT),
                                   [key.proof("POST", TOKEN_URL)], client_id="demo-spa"), key, refresh=True)
    refresh = [("grant_type", "refresh_token"), ("refresh_token", first["refresh_token"])]
    # Another key: the family is bound elsewhere (RFC 9449 5.0).
    assert_error(post(tokens, refresh, [DpopKey().proof("POST", TOKEN_URL)], client_id="demo-spa"),
                 400, "invalid_grant", "The DPoP proof's key is not the key this refresh token is bound to.")
    # No proof at all.
    assert_invalid_proof(post(tokens, refresh, [], client_id="demo-spa"),
                         "This refresh token is DPoP-bound: send a DPoP proof of its key.")
    # The right key, after both refusals (they changed nothing).
    second = assert_dpop_token(post(tokens, refresh, [key.proof("POST", TOKEN_URL)], client_id="demo-spa"),
                               key, refresh=True)
    # The rotated token is bound too.
    assert_invalid_proof(post(tokens, [("grant_type", "refresh_token"), ("refresh_token", second["refresh_token"])],
                              [], client_id="demo-spa"),
                         "This refresh token is DPoP-bound: send a DPoP proof of its key.")


def test_confidential_clients_refresh_tokens_are_not_bound(tokens: TokenClient) -> None:
    key = DpopKey()
    first = assert_dpop_token(post(tokens, exchange_fields(new_code("demo-web", WEB_REDIRECT), WEB_REDIRECT),
                                   [key.proof("POST", TOKEN_URL)], client_id="demo-web"), key, refresh=True)
    refresh = [("grant_type", "refresh_token"), ("refresh_token", first["refresh_token"])]
    # RFC 9449 5.0: a confidential client's refresh token is bound to its authentication, not the key;
    # a refresh with a new key gives a token bound to that key.
    other = DpopKey()
    second = assert_dpop_token(post(tokens, refresh, [other.proof("POST", TOKEN_URL)], client_id="demo-web"),
                               other, refresh=True)
    third = body_of(post(tokens, [("grant_type", "refresh_token"), ("refresh_token", second["refresh_token"])], [],
                         client_id="demo-web"))
    assert third["token_type"] == "Bearer"


@pytest.mark.slow
def test_password_grant_binds(tokens: TokenClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_PASSWORD_GRANT", "true")
    caches.reset()
    table = boto3.client("dynamodb")
    table.update_item(TableName="ClientsTable", Key={"client_id": {"S": "demo-web"}},
                      UpdateExpression="SET grant_types = list_append(grant_types, :p)",
                      ExpressionAttributeValues={":p": {"L": [{"S": "password"}]}})
    key = DpopKey()
    fields = [("grant_type", "password"), ("username", "alice"), ("password", "alice-password"),
              ("scope", "charges:read")]
    assert_dpop_token(post(tokens, fields, [key.proof("POST", TOKEN_URL)], client_id="demo-web"), key)


def test_code_bound_by_dpop_jkt_needs_a_proof_of_that_key(tokens: TokenClient) -> None:
    key = DpopKey()
    code = new_code("demo-web", WEB_REDIRECT, dpop_jkt=key.jkt)
    assert_error(post(tokens, exchange_fields(code, WEB_REDIRECT), [DpopKey().proof("POST", TOKEN_URL)],
                      client_id="demo-web"),
                 400, "invalid_grant", "The DPoP proof's key is not the key this authorization code is bound to.")
    code = new_code("demo-web", WEB_REDIRECT, dpop_jkt=key.jkt)
    assert_invalid_proof(post(tokens, exchange_fields(code, WEB_REDIRECT), [], client_id="demo-web"),
                         "This authorization code is DPoP-bound: send a DPoP proof of its key.")
    code = new_code("demo-web", WEB_REDIRECT, dpop_jkt=key.jkt)
    assert_dpop_token(post(tokens, exchange_fields(code, WEB_REDIRECT), [key.proof("POST", TOKEN_URL)],
                           client_id="demo-web"), key, refresh=True)


def test_a_client_registered_for_bound_tokens_must_send_a_proof(tokens: TokenClient) -> None:
    boto3.client("dynamodb").update_item(
        TableName="ClientsTable", Key={"client_id": {"S": "demo-service"}},
        UpdateExpression="SET dpop_bound_access_tokens = :t", ExpressionAttributeValues={":t": {"BOOL": True}})
    assert_invalid_proof(tokens.client_credentials(),
                         "This client's access tokens must be DPoP-bound: send a DPoP proof (RFC 9449 5.2).")
    key = DpopKey()
    assert_dpop_token(post(tokens, CC, [key.proof("POST", TOKEN_URL)]), key)


# --------------------------------------------------------------------------- attacks (RFC 9449 11)

def test_a_replayed_proof_is_refused(tokens: TokenClient) -> None:
    key = DpopKey()
    proof = key.proof("POST", TOKEN_URL)
    assert_dpop_token(post(tokens, CC, [proof]), key)
    assert_invalid_proof(post(tokens, CC, [proof]),
                         "The DPoP proof was already used (jti); make a new proof for each request.")


def test_a_replayed_proof_does_not_consume_the_code(tokens: TokenClient) -> None:
    key = DpopKey()
    proof = key.proof("POST", TOKEN_URL)
    assert_dpop_token(post(tokens, CC, [proof]), key)
    code = new_code("demo-web", WEB_REDIRECT)
    assert_invalid_proof(post(tokens, exchange_fields(code, WEB_REDIRECT), [proof], client_id="demo-web"),
                         "The DPoP proof was already used (jti); make a new proof for each request.")
    assert_dpop_token(post(tokens, exchange_fields(code, WEB_REDIRECT), [key.proof("POST", TOKEN_URL)],
                           client_id="demo-web"), key, refresh=True)


@pytest.mark.parametrize(("method", "url", "description"), [
    ("GET", TOKEN_URL, "The DPoP proof's htm does not match the request method POST."),
    ("POST", f"{ISSUER}/oauth/revoke", f"The DPoP proof's htu does not match the request URI {TOKEN_URL}."),
    ("POST", "https://127.0.0.1:3000/oauth/token", f"The DPoP proof's htu does not match the request URI {TOKEN_URL}."),
])
def test_a_proof_for_another_method_or_url_is_refused(tokens: TokenClient, method: str, url: str,
                                                      description: str) -> None:
    assert_invalid_proof(post(tokens, CC, [DpopKey().proof(method, url)]), description)


def test_htu_is_compared_normalised_and_without_query_or_fragment(tokens: TokenClient) -> None:
    key = DpopKey()
    url = "HTTP://127.0.0.1:3000/oauth/%74oken?x=1#frag"
    assert_dpop_token(post(tokens, CC, [key.proof("POST", url)]), key)


@pytest.mark.parametrize(("offset", "description"), [
    (-130, "The DPoP proof is too old (iat); make a new proof for each request."),
    (130, "The DPoP proof was issued in the future (iat)."),
])
# A few seconds beyond the 120 s leeway either way: a second boundary between making the proof and
# checking it must not decide the outcome.
def test_expired_and_future_iat_are_refused(tokens: TokenClient, offset: int, description: str) -> None:
    assert_invalid_proof(post(tokens, CC, [DpopKey().proof("POST", TOKEN_URL, iat=int(time.time()) + offset)]),
                         description)


def test_iat_at_the_edge_of_the_leeway_is_accepted(tokens: TokenClient) -> None:
    key = DpopKey()
    assert_dpop_token(post(tokens, CC, [key.proof("POST", TOKEN_URL, iat=int(time.time()) - 110)]), key)


def test_alg_none_and_hs256_are_refused(tokens: TokenClient) -> None:
    key = DpopKey()
    claims = {"jti": "x", "htm": "POST", "htu": TOKEN_URL, "iat": int(time.time())}
    allowed = "The DPoP proof's alg must be one of ES256, EdDSA, RS256, PS256 (RFC 9449 4.3)."
    none = {"typ": "dpop+jwt", "alg": "none", "jwk": key.public_jwk}
    # As RFC 7518 3.6 writes it (empty signature), and with a signature to get past the syntax check.
    assert_invalid_proof(post(tokens, CC, [unsigned_proof(none, claims)]),
                         "The DPoP proof is not a compact JWS (RFC 9449 4.3).")
    assert_invalid_proof(post(tokens, CC, [unsigned_proof(none, claims, b"sig")]), allowed)
    assert_invalid_proof(post(tokens, CC, [hs256_proof({"typ": "dpop+jwt", "jwk": {"kty": "oct", "k": "c2VjcmV0"}},
                                                       claims, b"s" * 32)]), allowed)


def test_a_private_key_in_jwk_is_refused(tokens: TokenClient) -> None:
    key = DpopKey()
    private = dict(key.key.as_dict(private=True))
    assert "d" in private
    assert_invalid_proof(post(tokens, CC, [key.proof("POST", TOKEN_URL, header={"jwk": private})]),
                         "The DPoP proof's jwk must be a public key (RFC 9449 4.3).")


def test_a_proof_signed_by_another_key_than_its_jwk_is_refused(tokens: TokenClient) -> None:
    key, other = DpopKey(), DpopKey()
    assert_invalid_proof(post(tokens, CC, [key.proof("POST", TOKEN_URL, header={"jwk": other.public_jwk})]),
                         "The DPoP proof's signature does not verify with its jwk.")


@pytest.mark.parametrize(("header", "claims", "description"), [
    ({"typ": "JWT"}, None, "The DPoP proof's typ must be dpop+jwt (RFC 9449 4.2)."),
    ({"jwk": None}, None, "The DPoP proof's header has no jwk (RFC 9449 4.2)."),
    (None, {"jti": None}, "The DPoP proof's jti must be a string of 1 to 256 characters (RFC 9449 4.2)."),
    (None, {"iat": "now"}, "The DPoP proof's iat must be an integer (RFC 9449 4.2)."),
])
def test_malformed_proofs_are_refused(tokens: TokenClient, header: dict[str, Any] | None,
                                      claims: dict[str, Any] | None, description: str) -> None:
    assert_invalid_proof(post(tokens, CC, [DpopKey().proof("POST", TOKEN_URL, header=header, claims=claims)]),
                         description)


def test_two_dpop_headers_and_garbage_are_refused(tokens: TokenClient) -> None:
    key = DpopKey()
    assert_invalid_proof(post(tokens, CC, [key.proof("POST", TOKEN_URL), key.proof("POST", TOKEN_URL)]),
                         "The request carries more than one DPoP header (RFC 9449 4.3).")
    assert_invalid_proof(post(tokens, CC, ["not a jws"]), "The DPoP proof is not a compact JWS (RFC 9449 4.3).")


@pytest.mark.slow
def test_32_threads_with_one_proof_one_token(tokens: TokenClient) -> None:
    key = DpopKey()
    proof = key.proof("POST", TOKEN_URL)
    statuses: list[int] = []
    barrier = threading.Barrier(32)

    def race() -> None:
        barrier.wait()
        statuses.append(post(tokens, CC, [proof])["statusCode"])

    threads = [threading.Thread(target=race) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] + [400] * 31


def test_a_proof_more_than_60_seconds_ahead_is_refused_whatever_the_leeway(tokens: TokenClient) -> None:
    # FAPI 2.0 5.3.2.1 item 13: reject iat more than 60 s in the future (the leeway here is 120 s).
    assert_invalid_proof(post(tokens, CC, [DpopKey().proof("POST", TOKEN_URL, iat=int(time.time()) + 75)]),
                         "The DPoP proof was issued in the future (iat).")
    key = DpopKey()
    assert_dpop_token(post(tokens, CC, [key.proof("POST", TOKEN_URL, iat=int(time.time()) + 30)]), key)
