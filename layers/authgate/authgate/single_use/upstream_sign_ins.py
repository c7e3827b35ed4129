"""A sign-in sent to an upstream identity provider, pending its answer (docs/federation.md, "What authgate keeps").

Kept in the browser that started it, nowhere else: the `authgate_upstream` cookie (interaction.upstream_cookie)
holds the whole pending sign-in sealed (AES-256-GCM, authgate.sealing) under a key derived from the stack's sealing
key, bound to the `state` (or SAML RelayState) the IdP echoes -- the SHA-256 of that value is the sealed value's
associated data, so a cookie opens only with the answer to its own request, and an answer only in the browser that
holds its cookie (login CSRF: RFC 9700 4.7, RFC 6749 10.12). The browser never reads it (HttpOnly) and cannot alter
it (the GCM tag). It holds the IdP asked (the mix-up defence: an answer is checked against that IdP only, RFC 9700
4.4), the request's secrets (nonce and PKCE verifier, or the AuthnRequest's ID), what the person's request asked of
the IdP (max_age, a fresh sign-in, a second factor), when it started (it lives 10 minutes) and where the flow
resumes (its form's action and hidden fields, and the origin its answer leads on to).

The `state` of an OpenID Connect request is itself sealed under a key of its own: 128 random bits with the tenant
and the IdP it went to, so that an answer arriving without its cookie (in another browser) is told from a state
nobody issued, and recorded against that IdP. A SAML RelayState stays within its 80 bytes (Bindings 3.4.3): 256
random bits (the ACS's path names the tenant).

Single use without a write: the callback clears the cookie as it accepts the answer; the code it carries is single
use at the IdP (RFC 6749 4.1.2) and redeemed with this cookie's PKCE verifier, and the ID token must carry this
cookie's nonce (OpenID Connect Core 15.5.2); a SAML assertion's ID is accepted once (federation.saml's replay
write). A copy of the cookie is worth nothing without a fresh code from the IdP for this very request.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any, NamedTuple

from authgate import base64url, clock, sealing

LIFETIME = 600
_COOKIE_LABEL = b"authgate upstream sign-in cookie v2"
_STATE_LABEL = b"authgate upstream state v1"
_STATE_OWNER = ("upstream-state",)
# A RelayState: 32 random bytes, 43 base64url characters, within SAML's 80 bytes.
HANDLE_BYTES = 32
# The longest state or RelayState read (an OpenID Connect state: its tenant and IdP ids, sealed).
MAX_STATE = 700


class PendingSignIn(NamedTuple):
    """What the answer of one upstream sign-in is checked against, and where its flow resumes."""

    tenant_id: str
    issuer: str
    idp_id: str
    protocol: str
    started: int
    # OpenID Connect: the request's nonce and PKCE verifier; SAML: the AuthnRequest's ID.
    nonce: str = ""
    code_verifier: str = ""
    request_id: str = ""
    # What the person's request asked of the IdP (OIDC Core 3.1.2.1): max_age, a fresh sign-in (prompt=login,
    # ForceAuthn), a second factor (step-up upstream: acr_values, RequestedAuthnContext).
    max_age: int | None = None
    fresh: bool = False
    second_factor: bool = False
    # The flow: its form's action ("authorize", "device", "approve", "account"), hidden fields, and the origin its
    # answer may redirect to (CSP form-action), and its notes (interaction.handoff.Back.notes).
    action: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    leads_to: str = ""
    notes: dict[str, Any] | None = None


class PendingInvalid(Exception):
    """No cookie, another sign-in's, altered or expired: all the same to the person (start again)."""


def new_state(sealing_key: bytes, tenant_id: str, idp_id: str, protocol: str) -> str:
    """The value the IdP echoes: a SAML RelayState (random), or an OpenID Connect state (random, with its tenant and
    IdP, sealed)."""
    if protocol == "saml":
        return secrets.token_urlsafe(HANDLE_BYTES)
    named = json.dumps([tenant_id, idp_id, secrets.token_urlsafe(16)], separators=(",", ":"))
    return sealing.seal(sealing.derive(sealing_key, _STATE_LABEL), named, _STATE_OWNER)


def named(sealing_key: bytes, state: str) -> tuple[str, str] | None:
    """(tenant, IdP) an OpenID Connect state this stack issued names; None for any other value."""
    if not state or len(state) > MAX_STATE:
        return None
    try:
        tenant_id, idp_id, _random = json.loads(sealing.unseal(sealing.derive(sealing_key, _STATE_LABEL), state,
                                                               _STATE_OWNER))
        return str(tenant_id), str(idp_id)
    except (sealing.SecretUnreadable, ValueError, TypeError):
        return None


def sealed(sealing_key: bytes, pending: PendingSignIn, state: str) -> str:
    """`pending` sealed for the cookie, bound to `state`."""
    values = {**pending._asdict(), "fields": [list(f) for f in pending.fields]}
    return sealing.seal(sealing.derive(sealing_key, _COOKIE_LABEL), json.dumps(values, separators=(",", ":")),
                        (_digest(state),))


def opened(sealing_key: bytes, cookie: str | None, state: str) -> PendingSignIn:
    """The pending sign-in the cookie holds for `state`, unexpired; PendingInvalid otherwise."""
    if not cookie or not state or len(state) > MAX_STATE:
        raise PendingInvalid("no upstream cookie, or no state")
    try:
        values = json.loads(sealing.unseal(sealing.derive(sealing_key, _COOKIE_LABEL), cookie, (_digest(state),)))
        values["fields"] = tuple((str(name), str(value)) for name, value in values["fields"])
        pending = PendingSignIn(**values)
    except (sealing.SecretUnreadable, ValueError, TypeError, KeyError):
        raise PendingInvalid("the upstream cookie does not open with this state") from None
    if not 0 <= clock.seconds() - pending.started < LIFETIME:
        raise PendingInvalid("the pending sign-in expired")
    return pending


def _digest(state: str) -> str:
    return base64url.encode(hashlib.sha256(state.encode("utf-8", "surrogateescape")).digest())
