"""Who an access token speaks for, once the resource has accepted it (RFC 9068 section 2.2 claims)."""

from __future__ import annotations

from typing import Any, NamedTuple


class Principal(NamedTuple):
    """The validated claims a protected route acts on."""

    subject: str
    client_id: str
    tenant: str
    scopes: frozenset[str]
    jti: str
    grant_id: str | None
    expires_at: int
    # The DPoP key the token is bound to (cnf.jkt, RFC 9449 6.1), or None for a bearer token.
    jkt: str | None = None
    # Who acts for the subject (RFC 8693 4.1 `act`, nested per hop), or None when the token was not exchanged.
    act: dict[str, Any] | None = None
