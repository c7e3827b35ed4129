"""What handling a request has learned, typed: the one place layers leave facts for the boundary.

Modelled on node-oidc-provider's `ctx.oidc`: instead of string keys in a dict written by one
package and read by another, each fact is a typed attribute, set by the component that learns
it and read by the renderer or the App:
- `error_format`: the authenticated client's registered error shape (the bearer guard sets it;
  negotiation reads it), so even a 403 speaks the client's shape;
- `redirect`: the authorization request's trusted redirect URI and state (the authorize flow
  sets it; the OAuth renderer reads it), after which every error is a redirect (RFC 6749
  4.1.2.1), never before, or, for a self-registered client not yet vouched for, a page offering it;
- `response_headers`: headers every response to this request carries, whatever its status (the
  limiter's RateLimit fields); the App applies them once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from authgate.request_protocol import ErrorFormat


class AuthorizationRedirect(NamedTuple):
    """A redirect URI the authorization endpoint may send errors to, and the state to echo.

    `follow`: whether an error is sent there at once (a client an administrator registered, or one
    this browser's person approved before); otherwise the error page offers it as a link (RFC 9700
    4.11.2: a self-registered client's redirect URI is no one's word but its registrant's)."""

    redirect_uri: str
    state: str | None
    follow: bool = True


@dataclass
class RequestContext:
    error_format: ErrorFormat | None = None
    redirect: AuthorizationRedirect | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
