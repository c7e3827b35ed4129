"""This browser, bound to the forms it is shown: the binding cookie and the CSRF tokens derived from it (RFC 6749
10.12, login CSRF in particular).

A random value set once per browser (`authgate_binding`: HttpOnly, SameSite=Strict, `__Host-` on a stage,
http.cookies) binds every form authgate renders to the browser it was shown to: a form's CSRF token is
HMAC(key, binding || the form's nonce), so it is valid only with that cookie and that form, and an attacker who
fetched a form of their own cannot make a victim's browser post it. The key is the stack's sealing key
(stores.sealing_key); every MAC names its purpose, so that no token of one kind is ever accepted as another.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

from authgate import base64url
from authgate.http.cookies import set_cookie, token_cookie
from authgate.stores.sealing_key import sealing_key

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

COOKIE = "authgate_binding"
BINDING_TTL = 30 * 24 * 3600  # seconds a browser keeps its binding


def form_key() -> bytes:
    """HMAC key: the stack's sealing key (stores.sealing_key)."""
    return sealing_key()


def mac(purpose: bytes, data: bytes) -> bytes:
    """HMAC-SHA256 of `data` under the purpose label (a sealed request is never a CSRF token, nor the reverse)."""
    return hmac.new(form_key(), purpose + b"\x00" + data, hashlib.sha256).digest()


def new_binding() -> str:
    return secrets.token_urlsafe(32)


def csrf_token(binding: str, nonce: str) -> str:
    return base64url.encode(mac(b"csrf", f"{binding}|{nonce}".encode()))


def csrf_matches(csrf: str | None, binding: str, nonce: str) -> bool:
    """Whether `csrf` is the token of this browser's binding and `nonce` (constant-time)."""
    if not csrf:
        return False
    return hmac.compare_digest(csrf.encode("utf-8", "surrogateescape"), csrf_token(binding, nonce).encode("ascii"))


def binding_cookie(value: str, issuer: str) -> str:
    """Set-Cookie for the browser binding: unreadable by scripts, never sent cross-site, `__Host-` on a stage so that
    no other host of the site can plant a binding whose CSRF tokens it knows (http.cookies)."""
    return set_cookie(COOKIE, value, issuer, same_site="Strict", max_age=BINDING_TTL)


def binding_from(request: RequestView) -> str | None:
    """The binding value of the request's binding cookie, if well formed."""
    return token_cookie(request, COOKIE, 100)
