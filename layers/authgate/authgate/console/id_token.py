"""The console's check of the ID token its sign-in got (OpenID Connect Core 1.0 3.1.3.7, 3.1.2.1; RFC 8725).

In order, each failure a SignInRefused naming its reason: a compact JWS of at most MAX_TOKEN characters with a JSON
header and claims; `typ` JWT when present; `alg` one this stack signs with (RS256, ES256: never `none`, never a MAC),
no `crit`; the signature by a published key of this stack whose algorithm it is (the keys' one item, warm-cached:
tokens.validator's key cache, no HTTP to the JWKS of one's own stack); `iss` this issuer exactly; `aud` the console's
client (and `azp`, when present, too); `exp` not passed and `iat` not in the future, within the leeway; `sub` a
string; the `nonce` this browser's sign-in sent (constant time); `acr` mfa, as the console asks (acr_values); and
`auth_time` no older than the console's max_age (3.1.2.1: the sign-in must be that fresh).
"""

from __future__ import annotations

import hmac
from typing import Any

from authgate.assurance import MFA
from authgate.settings import get_settings
from authgate.tokens import jose_header
from authgate.tokens.jws import segment_bytes, segment_json
from authgate.tokens.numeric_date import numeric_date
from authgate.tokens.validator import default_validator
from authgate.tokens.verification_keys import ALLOWED_ALGS

MAX_TOKEN = 8192


class SignInRefused(ValueError):
    """The sign-in's answer does not hold; the message is for the log, the page says what to do."""


def validated(token: str, *, issuer: str, client_id: str, nonce: str, max_age: int, now: int) -> dict[str, Any]:
    """The ID token's claims once every check above holds."""
    claims = _signed_claims(token, now)
    leeway = get_settings().leeway
    if claims.get("iss") != issuer:
        raise SignInRefused(f"iss {str(claims.get('iss'))[:200]!r} is not {issuer!r}")
    aud = claims.get("aud")
    if client_id not in ([aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []) \
            or claims.get("azp", client_id) != client_id:
        raise SignInRefused(f"aud {str(aud)[:200]!r} (azp {str(claims.get('azp'))[:100]!r}) is not {client_id!r}")
    exp, iat = numeric_date(claims.get("exp")), numeric_date(claims.get("iat"))
    if exp is None or iat is None or exp <= now - leeway or iat > now + leeway:
        raise SignInRefused(f"exp {exp} or iat {iat} does not hold at {now}")
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise SignInRefused("no sub")
    sent = claims.get("nonce")
    if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), nonce.encode()):
        raise SignInRefused("the nonce is not this sign-in's")
    if claims.get("acr") != MFA:
        raise SignInRefused(f"acr {str(claims.get('acr'))[:40]!r} is not {MFA}")
    auth_time = numeric_date(claims.get("auth_time"))
    if auth_time is None or auth_time + max_age < now - leeway:
        raise SignInRefused(f"auth_time {auth_time} is more than {max_age} s ago")
    return claims


def _signed_claims(token: str, now: int) -> dict[str, Any]:
    if len(token) > MAX_TOKEN or token.count(".") != 2:
        raise SignInRefused("not a compact JWS")
    head, body, tail = token.split(".")
    header, claims = segment_json(head), segment_json(body)
    if header is None or claims is None:
        raise SignInRefused("not a JWS with JSON header and claims")
    try:
        alg = jose_header.checked_alg(header, tuple(sorted(ALLOWED_ALGS)), typ="jwt" if "typ" in header else None)
        signature = segment_bytes(tail)
    except (jose_header.HeaderRejected, ValueError) as exc:
        raise SignInRefused(f"header or signature refused: {exc}") from None
    kid = header.get("kid")
    if not default_validator().signed_here(kid, alg, f"{head}.{body}".encode("ascii"), signature, now):
        raise SignInRefused(f"no published key of this stack verifies it (kid {str(kid)[:64]!r})")
    return claims
