"""RFC 9068 JWT access tokens. STUB: issue 5 implements; the signature is the interface."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IssuedToken:
    token: str
    jti: str
    expires_in: int
    scope: str


def issue_access_token(*, issuer: str, subject: str, client_id: str, tenant: str, scope: str,
                       audience: str | None = None, grant_id: str | None = None) -> IssuedToken:
    """Sign an access token (typ at+jwt) with the current key. `grant_id` ties it to a code or refresh family."""
    raise NotImplementedError("issue 5")
