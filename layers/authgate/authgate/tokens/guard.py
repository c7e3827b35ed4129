"""The bearer guard (RFC 6750) used by every protected route. STUB: issue 5 implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authgate.http.request import Request


@dataclass(frozen=True)
class Principal:
    """Who an access token speaks for, once the guard has accepted it."""

    subject: str
    client_id: str
    tenant: str
    scopes: frozenset[str]
    jti: str
    grant_id: str | None
    expires_at: int


def require_bearer(request: "Request", scope: str) -> Principal:
    """Validate the bearer token and the required scope, or raise ApiError with WWW-Authenticate.

    On success sets request.state["client_id"] and request.state["tenant"].
    """
    raise NotImplementedError("issue 5")
