"""This browser's pending upstream sign-in: the `authgate_upstream` cookie (single_use.upstream_sign_ins; login CSRF
at the callback, RFC 6749 10.12, RFC 9700 4.7).

The browser binding (interaction.binding) is SameSite=Strict: it does not come with the identity provider's
answer, a cross-site navigation (and, for SAML and Apple, a cross-site POST). This cookie does: the pending
sign-in sealed and bound to the state the IdP echoes, HttpOnly, SameSite=None and Secure on a stage (`__Host-`,
http.cookies; Lax on the loopback local stack, where browsers refuse None without Secure), living 10 minutes, and
cleared by the callback that accepts its answer. One at a time: a sign-in started in a second tab replaces the
first one's, whose answer is then refused (start again), as openid-client, Authlib and oauth4webapi's own
cookie-kept transactions behave.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.http.cookies import cookie_values, set_cookie
from authgate.issuer import base_url
from authgate.single_use.upstream_sign_ins import LIFETIME

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

COOKIE = "authgate_upstream"
# A browser keeps a cookie of about 4096 bytes, its name and attributes included (RFC 6265 6.1).
MAX_VALUE = 3900


class TooLarge(ValueError):
    """A pending sign-in that a browser would not keep."""


def kept(request: RequestView, sealed: str) -> str:
    """The Set-Cookie that keeps the sealed pending sign-in 10 minutes; TooLarge when no browser would keep it."""
    if len(sealed) > MAX_VALUE:
        raise TooLarge(f"a pending sign-in of {len(sealed)} characters")
    return set_cookie(COOKIE, sealed, base_url(request), same_site="None", max_age=LIFETIME)


def cleared(request: RequestView) -> str:
    """The Set-Cookie that ends the pending sign-in in this browser (its answer was accepted)."""
    return set_cookie(COOKIE, "", base_url(request), same_site="None", max_age=0)


def sealed(request: RequestView) -> str | None:
    """The sealed pending sign-in this browser sent, if any."""
    for value in cookie_values(request, COOKIE):
        if 0 < len(value) <= MAX_VALUE:
            return value
    return None
