"""The logout token of OpenID Connect Back-Channel Logout 1.0 (2.4): a JWT saying a session ended.

Signed as the client's ID tokens are (2.4: the same keys; the current key of its
id_token_signed_response_alg, RS256 by default), header typ `logout+jwt`
(2.4: explicit typing, so a logout token is never taken for an ID token). Claims: iss, aud (the
client), iat, exp (short: LIFETIME), jti (random), sub (the user's user_id, as in the ID token)
and sid (the session's, when a session ended), events with the back-channel logout event and an
empty object; never a nonce (2.4: "A nonce Claim MUST NOT be present"). It is signed when it is
sent, each attempt anew, so a retry minutes later still carries a fresh iat and exp.
"""

from __future__ import annotations

import secrets

from authgate import clock
from authgate.settings import ID_TOKEN_DEFAULT_ALG
from authgate.tokens.current_signer import current_signer
from authgate.tokens.jws import compact

LOGOUT_TOKEN_TYPE = "logout+jwt"
EVENT = "http://schemas.openid.net/event/backchannel-logout"
# Seconds a logout token is valid (2.4 asks for a short lifetime; the RP checks exp, 2.6 step 3).
LIFETIME = 120


def issue_logout_token(*, issuer: str, client_id: str, sub: str, sid: str, jti: str | None = None,
                       alg: str = ID_TOKEN_DEFAULT_ALG) -> str:
    """Sign a logout token for `client_id` about `sub` (and session `sid` when not empty) with `alg`."""
    signer = current_signer(alg=alg)
    now = clock.seconds()
    claims: dict[str, object] = {
        "iss": issuer, "aud": client_id, "iat": now, "exp": now + LIFETIME,
        "jti": jti or secrets.token_urlsafe(18), "sub": sub, "events": {EVENT: {}},
    }
    if sid:
        claims["sid"] = sid
    return compact({"typ": LOGOUT_TOKEN_TYPE, "alg": signer.alg, "kid": signer.kid}, claims, signer)
