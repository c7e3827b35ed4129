"""The ID token of a grant with scope openid (OpenID Connect Core 2, 3.1.3.6, 3.1.3.7, 12.2).

A JWS (RFC 7515) with header typ `JWT`, signed with the client's id_token_signed_response_alg
(RS256 unless it registered another the server offers: OIDC Core 3.1.3.7 item 7, OIDC Dynamic
Client Registration 1.0 2) by that algorithm's current key: one more signature and no DynamoDB
call (the published keys' item the grant just read names the current key of each algorithm).
Its claims: iss, sub (the user's user_id, never the username: OIDC Core 2 asks for an
identifier never reassigned), aud and azp (the client), exp, iat, auth_time, acr and amr (the
sign-in's, RFC 8176), sid (the sign-in session, when there is one), nonce (the authorization
request's, in the code exchange's ID token only), at_hash (3.1.3.6: the left half of the
SHA-256 of the access token's ASCII, base64url). On refresh (12.2) the same sub, auth_time,
acr and amr, a new iat and exp, and no nonce.
"""

from __future__ import annotations

import hashlib

from authgate import base64url, clock
from authgate.settings import ID_TOKEN_DEFAULT_ALG, get_settings
from authgate.single_use.authentication import Authentication
from authgate.tokens.current_signer import current_signer
from authgate.tokens.jws import compact

# OIDC Core 2: "ID Tokens SHOULD NOT use the JWS or JWE typ (Type) header parameter" beyond JWT; JWT it is.
ID_TOKEN_TYPE = "JWT"


def at_hash(access_token: str) -> str:
    """OIDC Core 3.1.3.6: base64url of the left-most half of the hash of the token's ASCII octets
    (SHA-256 for RS256 and ES256, the only algorithms this server signs with)."""
    return base64url.encode(hashlib.sha256(access_token.encode("ascii")).digest()[:16])


def issue_id_token(*, issuer: str, client_id: str, authentication: Authentication, access_token: str,
                   nonce: str | None = None, alg: str = ID_TOKEN_DEFAULT_ALG) -> str:
    """Sign the ID token for `client_id` stating `authentication` with `alg` (OIDC Core 2, 3.1.3.7 item 7)."""
    signer = current_signer(alg=alg)
    now = clock.seconds()
    claims: dict[str, object] = {
        "iss": issuer,
        "sub": authentication.user_id,
        "aud": client_id,
        # The access token's lifetime: the key rotation keeps a demoted key published that long
        # (tokens.rotation.retention), so every ID token stays verifiable until it expires.
        "exp": now + get_settings().access_token_ttl,
        "iat": now,
        "auth_time": authentication.auth_time,
        "acr": authentication.acr,
        "amr": list(authentication.amr),
        "azp": client_id,
        "at_hash": at_hash(access_token),
    }
    if authentication.sid:
        claims["sid"] = authentication.sid
    if nonce is not None:
        claims["nonce"] = nonce
    return compact({"typ": ID_TOKEN_TYPE, "alg": signer.alg, "kid": signer.kid}, claims, signer)
