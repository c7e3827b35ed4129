"""This browser, for its upstream sign-ins: the `authgate_upstream` cookie (login CSRF at the callback; RFC 6749
10.12, RFC 9700 4.7).

The browser binding (interaction.binding) is SameSite=Strict: it does not come with the identity provider's
answer, a cross-site navigation (and, for SAML and Apple, a cross-site POST). This cookie does: a random value,
HttpOnly, SameSite=None and Secure on a stage (`__Host-`, http.cookies; Lax on the loopback local stack, where
browsers refuse None without Secure), living 10 minutes from the last sign-in started. A pending sign-in keeps its
SHA-256 (single_use.upstream_sign_ins): an answer that comes back in another browser (an attacker's sign-in sent to
a victim) is refused before the IdP's answer is even read. The value is reused while it lives, so that two sign-ins
started in two tabs both come back.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

from authgate.http.cookies import set_cookie, token_cookie
from authgate.issuer import base_url

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

COOKIE = "authgate_upstream"
TTL = 600


def browser(request: RequestView) -> tuple[str, str]:
    """(the SHA-256 of this browser's value, the Set-Cookie that keeps it 10 more minutes: a new value if none)."""
    value = token_cookie(request, COOKIE, 64) or secrets.token_urlsafe(32)
    return _digest(value), set_cookie(COOKIE, value, base_url(request), same_site="None", max_age=TTL)


def came_back(request: RequestView, started_in: str) -> bool:
    """Whether this request comes from the browser whose value's SHA-256 is `started_in` (constant time)."""
    value = token_cookie(request, COOKIE, 64)
    return value is not None and hmac.compare_digest(_digest(value), started_in)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("ascii")).hexdigest()
