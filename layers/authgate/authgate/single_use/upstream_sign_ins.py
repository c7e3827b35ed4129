"""A sign-in sent to an upstream identity provider, pending its answer (docs/federation.md, "What authgate keeps").

Kept in CodesTable (stores.upstream_sign_ins) under `upstream#` + SHA-256 of its handle, a random value the IdP
echoes (OpenID Connect's `state`, SAML's RelayState: at most 80 bytes, Bindings 3.4.3), issued once, spent once by
one conditional write when the answer arrives, and kept 10 minutes. Everything it holds is sealed under a key
derived from the handle itself (AES-256-GCM, authgate.sealing): the table alone opens nothing -- no PKCE verifier,
no nonce, no flow's state. It holds the IdP asked (the mix-up defence: an answer is checked against that IdP
only), the browser it was started in (the SHA-256 of that browser's `authgate_upstream` cookie: login CSRF), the
request's secrets (nonce and PKCE verifier, or the AuthnRequest's ID), what the person's request asked of the IdP
(max_age, a fresh sign-in, a second factor) and where the flow resumes (its form's action and hidden fields, and
the origin its answer leads on to).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from authgate import base64url, sealing
from authgate.records import Field

PREFIX = "upstream#"
LIFETIME = 600
_LABEL = b"authgate upstream sign-in v1"


class PendingSignIn(NamedTuple):
    """What the answer of one upstream sign-in is checked against, and where its flow resumes."""

    tenant_id: str
    issuer: str
    idp_id: str
    protocol: str
    # SHA-256 (hex) of the browser's upstream cookie when the sign-in started.
    browser: str
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
    """Unknown, used, expired or altered: all the same to the person (start again)."""


FIELDS = (
    Field("code_hash", "S"),
    Field("state", "S"),
    Field("sealed", "S", "", public=False),
    Field("issued_at", "N", 0),
    Field("expires_at", "N", 0),
)


def item_id(handle: str) -> str:
    """The item's key: `upstream#` + SHA-256 (hex) of the handle."""
    import hashlib

    return PREFIX + hashlib.sha256(handle.encode("utf-8")).hexdigest()


def _key(handle: str) -> bytes:
    try:
        raw = base64url.decode(handle)
    except ValueError:
        raise PendingInvalid("a handle that is not base64url") from None
    return sealing.derive(raw, _LABEL)


def seal(pending: PendingSignIn, handle: str) -> str:
    """`pending` sealed under the handle's key, bound to its item."""
    values = {**pending._asdict(), "fields": [list(f) for f in pending.fields]}
    return sealing.seal(_key(handle), json.dumps(values, separators=(",", ":")), (item_id(handle),))


def opened(sealed: str, handle: str) -> PendingSignIn:
    """The pending sign-in `seal` sealed for `handle`; PendingInvalid when it does not open."""
    try:
        values = json.loads(sealing.unseal(_key(handle), sealed, (item_id(handle),)))
        values["fields"] = tuple((str(name), str(value)) for name, value in values["fields"])
        return PendingSignIn(**values)
    except (sealing.SecretUnreadable, ValueError, TypeError, KeyError):
        raise PendingInvalid("the pending sign-in does not open with this handle") from None
