"""The sign-in session's cookie (docs/oidc.md, identity-design): `authgate_session`, HttpOnly, SameSite=Lax.

Secure everywhere but on the loopback local stack (an http://127.0.0.1 or http://localhost
issuer, where a browser would drop a Secure cookie); Path is the issuer's path (the stage), so
the cookie goes only to this deployment; never a Domain attribute (host-only). SameSite=Lax, not
Strict: a client's link or redirect to /oauth/authorize is a top-level cross-site navigation,
which must carry the session for single sign-on.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from authgate.http.cookies import token_cookie
from authgate.sessions.model import COOKIE
from authgate.settings import get_settings

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")


def secret_from(cookie_headers: list[str]) -> str | None:
    """The session secret of the request's Cookie headers, if well formed."""
    return token_cookie(cookie_headers, COOKIE, 64)


def _attributes(issuer: str) -> list[str]:
    parts = urlsplit(issuer)
    attrs = ["HttpOnly", "SameSite=Lax", f"Path={parts.path.rstrip('/') or '/'}"]
    if not (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS):
        attrs.append("Secure")
    return attrs


def set_cookie(secret: str, issuer: str) -> str:
    """Set-Cookie for a new session secret, living as long as the session may."""
    return "; ".join([f"{COOKIE}={secret}", *_attributes(issuer), f"Max-Age={get_settings().session_lifetime}"])



def clear_cookie(issuer: str) -> str:
    """Set-Cookie that removes the session cookie (sign-out)."""
    return "; ".join([f"{COOKIE}=", *_attributes(issuer), "Max-Age=0"])
