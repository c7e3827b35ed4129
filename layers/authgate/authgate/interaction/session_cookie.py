"""The sign-in session's cookie (docs/oidc.md): `__Host-authgate_session` on a stage, `authgate_session` on the
loopback local stack; HttpOnly, SameSite=Lax (http.cookies: Secure, Path=/, never a Domain).

SameSite=Lax, not Strict: a client's link or redirect to /oauth/authorize is a top-level
cross-site navigation, which must carry the session for single sign-on. The `__Host-` prefix keeps
any other host of the site from planting a session of its own choosing (a login CSRF by cookie).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.http.cookies import set_cookie as host_cookie
from authgate.http.cookies import token_cookie
from authgate.sessions.model import COOKIE
from authgate.settings import get_settings

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView


def secret_from(request: RequestView) -> str | None:
    """The session secret of the request's session cookie, if well formed."""
    return token_cookie(request, COOKIE, 64)


def set_cookie(secret: str, issuer: str) -> str:
    """Set-Cookie for a new session secret, living as long as the session may."""
    return host_cookie(COOKIE, secret, issuer, same_site="Lax", max_age=get_settings().session_lifetime)


def clear_cookie(issuer: str) -> str:
    """Set-Cookie that removes the session cookie (sign-out)."""
    return host_cookie(COOKIE, "", issuer, same_site="Lax", max_age=0)
