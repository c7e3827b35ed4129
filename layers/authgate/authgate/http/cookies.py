"""This server's cookies (RFC 6265bis): one rule for their names and attributes, and reading one from a request.

On a stage (an https issuer) every cookie is `__Host-<name>`: Secure, Path=/, no Domain (RFC 6265bis
4.1.3.2), so no other host of the same site (a sibling subdomain) and no plain-http response can set
or replace it: nobody can plant a session of their own in a person's browser, nor a CSRF binding
whose tokens they know. The loopback local stack (a plain-http issuer; settings accept no other) keeps
the plain names without Secure, which a browser would refuse there. A request is read under the
name of the current mode only: on a stage a plain-named cookie, which anyone on the site could have
set, is never read. Every cookie is HttpOnly: no script of any page reads one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from authgate.issuer import base_url

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

HOST_PREFIX = "__Host-"


def _plain(issuer: str) -> bool:
    """The loopback local stack's http issuer (the only plain-http one settings accept)."""
    return urlsplit(issuer).scheme == "http"


def cookie_name(name: str, issuer: str) -> str:
    """`name` as this deployment sends it: `__Host-` + name, or the plain name on the loopback http stack."""
    return name if _plain(issuer) else HOST_PREFIX + name


def set_cookie(name: str, value: str, issuer: str, *, same_site: Literal["Lax", "Strict", "None"],
               max_age: int) -> str:
    """Set-Cookie for cookie `name`: HttpOnly, host-only (no Domain), Path=/, and Secure but on the loopback stack.
    SameSite=None (sent on cross-site POSTs too) only with Secure: on the loopback stack it is Lax, which browsers
    send on a top-level navigation from a site of the same scheme and host (its local identity providers)."""
    if same_site == "None" and _plain(issuer):
        same_site = "Lax"
    attributes = [f"{cookie_name(name, issuer)}={value}", "HttpOnly", f"SameSite={same_site}", "Path=/"]
    if not _plain(issuer):
        attributes.append("Secure")
    return "; ".join([*attributes, f"Max-Age={max_age}"])


def cookie_values(request: RequestView, name: str) -> list[str]:
    """The values the request's Cookie headers carry for cookie `name` under this deployment's name for it."""
    wanted = cookie_name(name, base_url(request))
    found = []
    for header in request.headers.get_all("cookie"):
        for part in header.split(";"):
            key, _, value = part.strip().partition("=")
            if key == wanted:
                found.append(value)
    return found


def token_cookie(request: RequestView, name: str, max_length: int) -> str | None:
    """The value of cookie `name` when it is a url-safe random token of 20 to `max_length` characters, else None."""
    for value in cookie_values(request, name):
        if 20 <= len(value) <= max_length and all(c.isalnum() or c in "-_" for c in value):
            return value
    return None
