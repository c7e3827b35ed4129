"""An RP's id_token_hint (OpenID Connect RP-Initiated Logout 1.0 section 2, OIDC Core 3.1.2.1): an ID token this
issuer signed, checked as far as a hint needs.

The signature against the published keys (RS256/ES256, the key named by `kid`), typ JWT, `iss`
this issuer, string `sub` and `aud`. Expiry is not checked: RP-Initiated Logout 1.0 section 4
says the OP should accept a hint that has expired, as an RP signs out long after it signed in.
Anything else is not a hint from this issuer (None).
"""

from __future__ import annotations

from typing import Any

from authgate import clock
from authgate.oauth.token.id_token import ID_TOKEN_TYPE
from authgate.tokens import jose_header
from authgate.tokens.jws import segment_bytes, segment_json
from authgate.tokens.validator import MAX_TOKEN_LENGTH, default_validator
from authgate.tokens.verification_keys import ALLOWED_ALGS


def verified_hint(token: str, issuer: str) -> dict[str, Any] | None:
    """The claims of an ID token this issuer signed (expired or not), or None."""
    if len(token) > MAX_TOKEN_LENGTH or token.count(".") != 2:
        return None
    head, body, tail = token.split(".")
    header, claims = segment_json(head), segment_json(body)
    if header is None or claims is None or not jose_header.typ_is(header, ID_TOKEN_TYPE.lower()):
        return None
    alg, kid = header.get("alg"), header.get("kid")
    if alg not in ALLOWED_ALGS or not isinstance(kid, str):
        return None
    try:
        signature = segment_bytes(tail)
    except ValueError:
        return None
    if not default_validator().signed_here(kid, alg, f"{head}.{body}".encode("ascii"), signature, clock.seconds()):
        return None
    if claims.get("iss") != issuer or not isinstance(claims.get("sub"), str) or not isinstance(claims.get("aud"), str):
        return None
    return claims
