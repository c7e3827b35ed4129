"""The consent page's hidden state: a signed, short-lived copy of the validated request, and CSRF.

The authorize function keeps no server-side session. The GET that validated the request puts
an HMAC-SHA256-signed copy of it in the form; the POST trusts only that copy, so nothing the
browser could edit (query string, hidden fields) changes what a code is bound to.

CSRF (RFC 6749 10.12, login CSRF in particular) uses a browser-binding cookie: a random value
set once per browser (HttpOnly, SameSite=Strict, `__Host-authgate_binding` on a stage: http.cookies). The form's CSRF token is
HMAC(key, binding || request nonce), so it is valid only with that cookie and that request; an
attacker who fetched a form of their own cannot make a victim's browser post it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import TYPE_CHECKING, Any

from authgate import base64url, clock
from authgate.http.cookies import set_cookie, token_cookie
from authgate.issuer import base_url
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.stores.sealing_key import sealing_key

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

FORM_TTL = 600  # seconds a consent form stays usable
COOKIE = "authgate_binding"
BINDING_TTL = 30 * 24 * 3600  # seconds a browser keeps its binding
_VERSION = 1
# The request's fields that are tuples (JSON gives them back as lists).
_TUPLES = ("scopes", "acr_values", "essential_acr")


class FormStateInvalid(Exception):
    """The posted form state is missing, altered, expired, or not bound to this browser."""


def form_key() -> bytes:
    """HMAC key: the stack's sealing key (stores.sealing_key)."""
    return sealing_key()


def _mac(purpose: bytes, data: bytes) -> bytes:
    # The purpose label keeps a blob MAC from ever being accepted as a CSRF token and vice versa.
    return hmac.new(form_key(), purpose + b"\x00" + data, hashlib.sha256).digest()


def new_binding() -> str:
    return secrets.token_urlsafe(32)


def seal(request: AuthorizationRequest) -> tuple[str, str]:
    """(blob, nonce): the signed copy of `request`, and the nonce its CSRF token is derived from."""
    now = clock.seconds()
    nonce = secrets.token_urlsafe(16)
    payload = {"v": _VERSION, "iat": now, "exp": now + FORM_TTL, "nonce": nonce,
               "req": {k: list(v) if isinstance(v, tuple) else v for k, v in request._asdict().items()}}
    data = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return f"{base64url.encode(data)}.{base64url.encode(_mac(b'request', data))}", nonce


def csrf_token(binding: str, nonce: str) -> str:
    return base64url.encode(_mac(b"csrf", f"{binding}|{nonce}".encode()))


def csrf_matches(csrf: str | None, binding: str, nonce: str) -> bool:
    """Whether `csrf` is the token of this browser's binding and `nonce` (constant-time)."""
    if not csrf:
        return False
    return hmac.compare_digest(csrf.encode("utf-8", "surrogateescape"), csrf_token(binding, nonce).encode("ascii"))


def unseal(blob: str | None, csrf: str | None, binding: str | None) -> tuple[AuthorizationRequest, str]:
    """The request a valid blob carries, and its nonce; FormStateInvalid for anything else."""
    if not blob or not csrf or not binding or len(blob) > 8192:
        raise FormStateInvalid("missing form state or binding cookie")
    try:
        data_part, mac_part = blob.split(".")
        data, mac = base64url.decode(data_part), base64url.decode(mac_part)
    except ValueError:
        raise FormStateInvalid("malformed form state") from None
    if not hmac.compare_digest(mac, _mac(b"request", data)):
        raise FormStateInvalid("form state signature does not verify")
    try:
        payload: dict[str, Any] = json.loads(data)
        req = payload["req"]
        request = AuthorizationRequest(**{**req, **{k: tuple(req[k]) for k in _TUPLES if k in req}})
        expires, nonce = int(payload["exp"]), str(payload["nonce"])
    except (ValueError, KeyError, TypeError):
        raise FormStateInvalid("form state of an unknown version") from None
    if payload.get("v") != _VERSION:
        raise FormStateInvalid("form state of an unknown version")
    if clock.now() >= expires:
        raise FormStateInvalid("form state expired")
    if not csrf_matches(csrf, binding, nonce):
        raise FormStateInvalid("CSRF token does not match this browser")
    return request, nonce


def form_state(auth: AuthorizationRequest, request: RequestView) -> tuple[str, str, str | None]:
    """(blob, CSRF token, Set-Cookie of a new binding or None) for a page that posts `auth` back to `request`'s
    browser."""
    binding = binding_from(request)
    blob, nonce = seal(auth)
    new = binding is None
    binding = new_binding() if binding is None else binding
    return blob, csrf_token(binding, nonce), binding_cookie(binding, base_url(request)) if new else None


def seal_state(purpose: bytes, payload: dict[str, Any], ttl: int) -> str:
    """A step's own state (a second-factor step's ticket): `payload`, an expiry, HMAC-signed under `purpose`."""
    data = json.dumps({**payload, "exp": clock.seconds() + ttl}, separators=(",", ":"), sort_keys=True).encode()
    return f"{base64url.encode(data)}.{base64url.encode(_mac(purpose, data))}"


def open_state(purpose: bytes, token: str) -> dict[str, Any]:
    """The payload of a state sealed under `purpose` and not expired; FormStateInvalid otherwise."""
    try:
        data_part, mac_part = token.split(".")
        data, mac = base64url.decode(data_part), base64url.decode(mac_part)
    except ValueError:
        raise FormStateInvalid("malformed step state") from None
    if len(token) > 8192 or not hmac.compare_digest(mac, _mac(purpose, data)):
        raise FormStateInvalid("step state signature does not verify")
    payload: dict[str, Any] = json.loads(data)
    if int(payload["exp"]) <= clock.seconds():
        raise FormStateInvalid("step state expired")
    return payload


def binding_cookie(value: str, issuer: str) -> str:
    """Set-Cookie for the browser binding: unreadable by scripts, never sent cross-site, `__Host-` on a stage so that
    no other host of the site can plant a binding whose CSRF tokens it knows (http.cookies)."""
    return set_cookie(COOKIE, value, issuer, same_site="Strict", max_age=BINDING_TTL)


def binding_from(request: RequestView) -> str | None:
    """The binding value of the request's binding cookie, if well formed."""
    return token_cookie(request, COOKIE, 100)
