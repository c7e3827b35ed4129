"""An identity provider's secrets at rest: its client secret and Apple's private key, sealed (authgate.sealing).

Under a key derived from the stack's sealing key with this kind's own label, bound to (tenant,
issuer, field): a sealed client secret copied onto another tenant's or another IdP's record, or
into the other field, does not open. The admin command seals what it reads from a file; the
relying party unseals it only to authenticate to the IdP's token endpoint. Never logged, never shown.

An upstream ID token a federated session keeps for sign-out's id_token_hint (sessions.model.Upstream) is
sealed the same way, under its own label, bound to (tenant, issuer, upstream subject): it proves a sign-in,
so the sessions table never holds it in clear.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from authgate import sealing

if TYPE_CHECKING:
    from authgate.identity_providers.model import IdentityProvider
    from authgate.sessions.model import Upstream

_LABEL = b"authgate identity provider secrets v1"
_ID_TOKEN_LABEL = b"authgate upstream id token v1"
SecretField = Literal["client_secret", "apple_private_key"]


def _key(label: bytes = _LABEL) -> bytes:
    """This kind of secret's key, derived from the stack's sealing key: the one place this package reads it."""
    from authgate.stores.sealing_key import sealing_key

    return sealing.derive(sealing_key(), label)


def seal(tenant_id: str, issuer: str, field: SecretField, value: str) -> str:
    """`value` sealed for the IdP `issuer` of `tenant_id`, as its `field`."""
    return sealing.seal(_key(), value, (tenant_id, issuer, field))


def unseal(idp: IdentityProvider, field: SecretField) -> str:
    """The IdP's `field` in clear ("" when none is set); sealing.SecretUnreadable when it does not open
    (the sealing key changed, or the value was moved from another record)."""
    value: str = getattr(idp, field)
    return sealing.unseal(_key(), value, (idp.tenant_id, idp.issuer, field)) if value else ""


def seal_id_token(tenant_id: str, issuer: str, subject: str, id_token: str) -> str:
    """An upstream ID token sealed for the session of `subject` at `issuer` in `tenant_id` ("" for none)."""
    return sealing.seal(_key(_ID_TOKEN_LABEL), id_token, (tenant_id, issuer, subject)) if id_token else ""


def id_token_of(tenant_id: str, upstream: Upstream) -> str:
    """The upstream ID token a federated session keeps, in clear ("" when none); sealing.SecretUnreadable when it
    does not open (the sealing key changed, or the value was moved from another session)."""
    if not upstream.id_token:
        return ""
    return sealing.unseal(_key(_ID_TOKEN_LABEL), upstream.id_token, (tenant_id, upstream.issuer, upstream.subject))
