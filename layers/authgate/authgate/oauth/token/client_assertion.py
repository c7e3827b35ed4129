"""private_key_jwt: a client authenticates with a JWT signed by a key it registered (RFC 7523 2.2, 3;
RFC 7521 4.2; OpenID Connect Core 9; FAPI 2.0 5.3.2.1).

Checks, in order, each failure a reason for the log and `invalid_client` for the client:
the JWS header (`alg` in ES256/PS256/EdDSA, never none, HS* or RS256: FAPI 2.0 5.4), the
signature by a registered key (picked by `kid`), `iss` = `sub` = client_id (RFC 7523 3 items 1-2),
`aud` a single string (never an array: an array lets an assertion name this server and another,
the audience-injection attack that draft-ietf-oauth-rfc7523bis closes) equal to this server's
issuer identifier, or for a client not on the fapi2 profile also the token or PAR endpoint URL
(RFC 9126 2: the server MUST accept those three for interoperability; FAPI 2.0 5.3.2.1 item 8:
only the issuer identifier), `exp`
required and at most MAX_LIFETIME (plus the leeway) ahead (3 item 4), `nbf`/`iat` within the
leeway in the future, never less than 10 s nor more than 60 s (items 5-6; FAPI 2.0 5.3.2.1 item 13), and last `jti` single-use until `exp` (item 7) by one conditional write.
"""

from __future__ import annotations

import json
import math
from typing import Any, NamedTuple

from authgate import clock
from authgate.clients.model import Client
from authgate.oauth.clients.profile import is_fapi2
from authgate.settings import get_settings
from authgate.single_use.errors import Replayed
from authgate.stores.replay import ReplayGuard, assertion_key
from authgate.tokens import client_keys, jose_header, jwa
from authgate.tokens.jws import segment_bytes, segment_json
from authgate.tokens.numeric_date import numeric_date

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ALGORITHMS = tuple(client_keys.ASSERTION_ALGORITHMS)
# An assertion is for one request: one that claims to live longer is refused (RFC 7523 3 item 4
# lets the server limit how far in the future exp may be). node-oidc-provider and Keycloak use
# a few minutes too.
MAX_LIFETIME = 300
MAX_ASSERTION = 8192
# iat/nbf may lie ahead of our clock by the leeway, but at least 10 s and never more than 60 s:
# FAPI 2.0 5.3.2.1 item 13 (accept 10 s, reject beyond 60 s), whatever the deployment's leeway.
MIN_FUTURE_SKEW, MAX_FUTURE_SKEW = 10, 60


class AssertionRejected(ValueError):
    """Why an assertion does not authenticate its client (for logs only)."""


class Assertion(NamedTuple):
    """A parsed, not yet verified client assertion: what the claims say and what was signed."""

    header: dict[str, Any]
    claims: dict[str, Any]
    signing_input: bytes
    signature: bytes

    @property
    def issuer(self) -> str | None:
        iss = self.claims.get("iss")
        return iss if isinstance(iss, str) else None


def parse(token: str) -> Assertion:
    """Split and decode a compact JWS (RFC 7515 7.1); AssertionRejected when it is not one."""
    if len(token) > MAX_ASSERTION:
        raise AssertionRejected("assertion too long")
    parts = token.split(".")
    if len(parts) != 3:
        raise AssertionRejected("assertion is not a compact JWS")
    header, claims = segment_json(parts[0]), segment_json(parts[1])
    if header is None or claims is None:
        raise AssertionRejected("assertion header or claims are not JSON objects")
    try:
        signature = segment_bytes(parts[2])
    except ValueError:
        raise AssertionRejected("assertion signature is not base64url") from None
    return Assertion(header, claims, f"{parts[0]}.{parts[1]}".encode("ascii"), signature)


def audiences(client: Client, issuer: str) -> tuple[str, ...]:
    """The `aud` values that name this server for `client` (RFC 9126 2; FAPI 2.0 5.3.2.1 item 8)."""
    if is_fapi2(client):
        return (issuer,)
    return (issuer, f"{issuer}/oauth/token", f"{issuer}/oauth/par")


def verify(assertion: Assertion, client: Client, issuer: str) -> None:
    """Authenticate `client` by `assertion`, or raise AssertionRejected (RFC 7523 3)."""
    header, claims = assertion.header, assertion.claims
    try:
        alg = jose_header.checked_alg(header, ALGORITHMS)
    except jose_header.HeaderRejected as rejected:
        raise AssertionRejected(f"alg {str(header.get('alg'))[:20]!r} not accepted" if rejected.member == "alg"
                                else "crit header not understood (RFC 7515 4.1.11)") from None
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise AssertionRejected("kid is not a string")
    if not client.jwks:
        raise AssertionRejected("client has no registered keys")
    if not any(jwa.verify(alg, key, assertion.signing_input, assertion.signature)
               for key in client_keys.candidates(client.jwks, alg, kid)):
        raise AssertionRejected("signature not made by a registered key")
    if claims.get("iss") != client.client_id or claims.get("sub") != client.client_id:
        raise AssertionRejected("iss and sub must both be the client_id")
    if not isinstance(claims.get("aud"), str) or claims["aud"] not in audiences(client, issuer):
        raise AssertionRejected(f"aud {json.dumps(claims.get('aud'))[:120]} is not the issuer identifier")
    now, leeway = clock.seconds(), get_settings().leeway
    exp = _number(claims, "exp")
    if exp is None:
        raise AssertionRejected("exp is required")
    if exp <= now - leeway:
        raise AssertionRejected("assertion expired")
    if exp > now + MAX_LIFETIME + leeway:
        raise AssertionRejected(f"exp more than {MAX_LIFETIME} s ahead")
    for name in ("nbf", "iat"):
        value = _number(claims, name)
        if name in claims and value is None:
            raise AssertionRejected(f"{name} is not a number")
        if value is not None and value > now + min(max(leeway, MIN_FUTURE_SKEW), MAX_FUTURE_SKEW):
            raise AssertionRejected(f"{name} is in the future")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti or len(jti) > 200:
        raise AssertionRejected("jti is required")
    # Accepted while now < exp + leeway: remembered until the first whole second past that, so a
    # fractional exp cannot outlive its jti (RFC 7523 3 item 7).
    _use_once(client.client_id, jti, math.ceil(exp) + leeway, now)


def _use_once(client_id: str, jti: str, until: int, now: int) -> None:

    try:
        ReplayGuard().use(assertion_key(client_id, jti), until, now=now)
    except Replayed:
        raise AssertionRejected("jti already used (replayed assertion)") from None


def _number(claims: dict[str, Any], name: str) -> float | None:
    value = numeric_date(claims.get(name))
    return None if value is None else float(value)
