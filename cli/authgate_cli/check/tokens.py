"""Access tokens the bearer probes send, and the check of a token the server issued (RFC 9068).

The checker cannot sign with the server's key, so its expired and foreign-signed tokens carry
a published `kid` and the right issuer and audience but are signed with a key made for this
run: a server must refuse both with invalid_token (RFC 6750 3.1; RFC 9068 4).
"""

from __future__ import annotations

import secrets
import time
from functools import lru_cache
from typing import Any

ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")


@lru_cache(maxsize=1)
def _run_key() -> Any:
    """An RSA key of this run, never published anywhere."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def foreign_token(*, issuer: str, audience: str, kid: str, expired: bool, scope: str = "charges:read") -> str:
    """An RFC 9068 access token signed by a key the server never published."""
    import jwt

    now = int(time.time())
    issued = now - 7200 if expired else now - 5
    claims = {"iss": issuer, "sub": "authgate-check", "aud": audience, "client_id": "authgate-check",
              "scope": scope, "iat": issued, "exp": issued + 900 if expired else now + 600,
              "jti": secrets.token_hex(16)}
    return jwt.encode(claims, _run_key(), algorithm="RS256", headers={"typ": "at+jwt", "kid": kid})


def verify_issued(token: str, jwks: dict[str, Any], issuer: str) -> list[str]:
    """What is wrong with a token the server issued: type, key, signature, issuer, expiry (RFC 9068 2, 4)."""
    import jwt

    problems: list[str] = []
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        return [f"the access token is not a JWS ({exc})"]
    if str(header.get("typ", "")).lower() not in ACCESS_TOKEN_TYPES:
        problems.append(f"typ {header.get('typ')!r}, expected at+jwt (RFC 9068 2.1)")
    keys = [k for k in jwks.get("keys", []) if isinstance(k, dict) and k.get("kid") == header.get("kid")]
    if not keys:
        return [*problems, f"kid {header.get('kid')!r} is not in the published JWKS"]
    # Only the public members: a JWKS that wrongly publishes "d" would otherwise build a private key.
    public = {k: v for k, v in keys[0].items() if k not in ("d", "p", "q", "dp", "dq", "qi", "oth", "k")}
    try:
        key = jwt.PyJWK.from_dict(public, algorithm=header.get("alg"))
        claims = jwt.decode(token, key.key, algorithms=[str(header.get("alg"))],
                            options={"verify_aud": False, "require": ["exp", "iss"]}, issuer=issuer)
    except jwt.ExpiredSignatureError:
        problems.append("the token the server just issued has already expired")
    except jwt.InvalidIssuerError:
        problems.append(f"iss is not the issuer {issuer!r}")
    except jwt.PyJWTError as exc:
        problems.append(f"the token does not verify against its published key: {exc}")
    else:
        if "aud" not in claims:
            problems.append("no aud claim (RFC 9068 2.2)")
    return problems
