"""RFC 9068 JWT access tokens: header typ at+jwt and kid (section 2.1), claims (section 2.2).

Claims: iss, sub, aud, exp, iat, jti, client_id, scope, plus `tenant` and, when the token
comes from a code or refresh family, `grant_id` (what revoking the grant matches on); a token of
a user's grant carries `acr` and `auth_time` of the sign-in behind it (section 2.2.1). A person's
token has their stable user_id as `sub` (OIDC Core 2: never reassigned; a username can come back
after a delete) and the username they signed in under as `username` (for display and for
authgate's own reads of the user's record, which is keyed by it; never an identifier). For
client_credentials the caller passes subject=client_id (RFC 9068 section 2.2). A token from a
token exchange (RFC 8693) also carries `act` (4.1), the subject token's `acr` and `auth_time`
when it had them, and expires no later than the subject token. A grant with
authorization_details (RFC 9396) carries them in the claim of that name (9.1). The default
audience is the charges resource server, `<issuer>/charges`: the API shares the issuer's base
URL, and a distinct identifier keeps tokens for this resource apart from any other.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from authgate import clock
from authgate.settings import get_settings
from authgate.tokens.current_signer import current_signer
from authgate.tokens.jws import compact
from authgate.tokens.jwt_profile import TOKEN_TYPE, default_audience


class IssuedToken(NamedTuple):
    token: str
    jti: str
    expires_in: int
    scope: str


def issue_access_token(*, issuer: str, subject: str, client_id: str, tenant: str, scope: str,
                       audience: str | None = None, grant_id: str | None = None,
                       jkt: str | None = None, acr: str = "", auth_time: int | None = None, username: str = "",
                       expires_before: int | None = None, carried: Mapping[str, object] | None = None,
                       authorization_details: Sequence[Mapping[str, object]] | None = None) -> IssuedToken:
    """Sign an access token (typ at+jwt) with the current key. `grant_id` ties it to a code or refresh family;
    `jkt` binds it to a DPoP key (`cnf`, RFC 9449 6.1); `acr` and `auth_time` say how and when the user
    signed in (RFC 9068 2.2.1); `username` the person's username (their user_id is `subject`); `expires_before` caps its expiry (RFC 8693 2.2.1); `carried` adds claims a
    token exchange keeps or adds (act, acr, auth_time: RFC 8693 4.1, RFC 9068 2.2.1); `authorization_details`
    what the person approved in detail (RFC 9396 9.1)."""
    signer = current_signer()
    now = clock.seconds()
    ttl = get_settings().access_token_ttl
    if expires_before is not None:
        ttl = max(0, min(ttl, expires_before - now))
    jti = secrets.token_urlsafe(18)
    claims: dict[str, object] = {
        "iss": issuer,
        "sub": subject,
        "aud": audience or default_audience(issuer),
        "exp": now + ttl,
        "iat": now,
        "jti": jti,
        "client_id": client_id,
        "scope": scope,
        "tenant": tenant,
    }
    if username:
        claims["username"] = username
    if grant_id:
        claims["grant_id"] = grant_id
    if jkt:
        claims["cnf"] = {"jkt": jkt}
    if acr:
        claims["acr"] = acr
    if auth_time is not None:
        claims["auth_time"] = auth_time
    claims.update(carried or {})
    if authorization_details:
        claims["authorization_details"] = list(authorization_details)
    header = {"typ": TOKEN_TYPE, "alg": signer.alg, "kid": signer.kid}
    return IssuedToken(token=compact(header, claims, signer), jti=jti, expires_in=ttl, scope=scope)
