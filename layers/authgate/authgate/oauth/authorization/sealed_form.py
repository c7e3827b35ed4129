"""The authorization endpoint's hidden state: a signed, short-lived copy of the validated request, the step of the
form it is in, and its CSRF token.

The authorize function keeps no server-side session. The GET that validated the request puts
an HMAC-SHA256-signed copy of it in the form; the POST trusts only that copy, so nothing the
browser could edit (query string, hidden fields) changes what a code is bound to. The copy names the
step of the form it was rendered in (interaction.steps: `password`, `consent`, `factor`, `passkey`,
`change`): the POST is dispatched on it. A form of another step is the same request sealed again with
its step, the same nonce and expiry, so that its CSRF token and lifetime stay the first form's.

CSRF (RFC 6749 10.12, login CSRF in particular) uses the browser binding (interaction.binding): the form's
CSRF token is HMAC(key, binding || request nonce), so it is valid only with that cookie and that request.
"""

from __future__ import annotations

import hmac
import json
import secrets
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import base64url, clock
from authgate.interaction.binding import (
    binding_cookie,
    binding_from,
    csrf_matches,
    csrf_token,
    mac,
    new_binding,
)
from authgate.interaction.sealed_state import FormStateInvalid
from authgate.issuer import base_url
from authgate.oauth.authorization.request import AuthorizationRequest

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

FORM_TTL = 600  # seconds a consent form stays usable
_VERSION = 2  # 2: the form's step is sealed with the request
# The request's fields that are tuples (JSON gives them back as lists).
_TUPLES = ("scopes", "acr_values", "essential_acr")


class Sealed(NamedTuple):
    """What a form's blob carries: the request, the step of the form, and the nonce and expiry of the first form."""

    request: AuthorizationRequest
    step: str
    nonce: str
    expires: int

    def again(self, step: str, request: AuthorizationRequest | None = None) -> str:
        """The blob of a form of `step` for the same request (or `request`), with this one's nonce and expiry."""
        return _blob(request or self.request, step, self.nonce, self.expires)


def fresh(request: AuthorizationRequest, step: str) -> Sealed:
    """A first form's state for `request`: a new nonce, FORM_TTL to live."""
    return Sealed(request, step, secrets.token_urlsafe(16), clock.seconds() + FORM_TTL)


def seal(request: AuthorizationRequest, step: str) -> tuple[str, str]:
    """(blob, nonce): the signed copy of `request` for a first form of `step`, and the nonce its CSRF token is
    derived from."""
    sealed = fresh(request, step)
    return sealed.again(step), sealed.nonce


def _blob(request: AuthorizationRequest, step: str, nonce: str, expires: int) -> str:
    payload = {"v": _VERSION, "exp": expires, "nonce": nonce, "step": step,
               "req": {k: list(v) if isinstance(v, tuple) else v for k, v in request._asdict().items()}}
    data = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return f"{base64url.encode(data)}.{base64url.encode(mac(b'request', data))}"


def unseal(blob: str | None, csrf: str | None, binding: str | None) -> Sealed:
    """What a valid blob carries; FormStateInvalid for anything else."""
    if not blob or not csrf or not binding or len(blob) > 8192:
        raise FormStateInvalid("missing form state or binding cookie")
    try:
        data_part, mac_part = blob.split(".")
        data, signature = base64url.decode(data_part), base64url.decode(mac_part)
    except ValueError:
        raise FormStateInvalid("malformed form state") from None
    if not hmac.compare_digest(signature, mac(b"request", data)):
        raise FormStateInvalid("form state signature does not verify")
    try:
        payload: dict[str, Any] = json.loads(data)
        req = payload["req"]
        request = AuthorizationRequest(**{**req, **{k: tuple(req[k]) for k in _TUPLES if k in req}})
        expires, nonce, step = int(payload["exp"]), str(payload["nonce"]), str(payload["step"])
    except (ValueError, KeyError, TypeError):
        raise FormStateInvalid("form state of an unknown version") from None
    if payload.get("v") != _VERSION:
        raise FormStateInvalid("form state of an unknown version")
    if clock.now() >= expires:
        raise FormStateInvalid("form state expired")
    if not csrf_matches(csrf, binding, nonce):
        raise FormStateInvalid("CSRF token does not match this browser")
    return Sealed(request, step, nonce, expires)


def form_state(auth: AuthorizationRequest, step: str, request: RequestView) -> tuple[Sealed, str, str | None]:
    """(the state, its CSRF token, Set-Cookie of a new binding or None) for a first page of `step` that posts `auth`
    back to `request`'s browser."""
    binding = binding_from(request)
    sealed = fresh(auth, step)
    new = binding is None
    binding = new_binding() if binding is None else binding
    return sealed, csrf_token(binding, sealed.nonce), binding_cookie(binding, base_url(request)) if new else None
