"""A factor's secret at rest, sealed (authgate.sealing) under a key derived from the stack's sealing key.

Its own HKDF label, so the key is never the consent form's MAC key nor another kind of secret's;
the owner is (tenant, username), so a sealed secret copied onto another user's item does not
open. Rotating the sealing key (the SessionSecret secret) makes sealed secrets unreadable:
docs/strong-authentication.md says what an operator does then (reset the users' factors).
"""

from __future__ import annotations

from authgate import sealing
from authgate.sealing import SecretUnreadable

__all__ = ["SecretUnreadable", "factor_key", "opened", "seal", "unseal"]

_LABEL = b"authgate second-factor secrets v1"


def factor_key(sealing_key: bytes) -> bytes:
    """The AES-256 key of second-factor secrets, derived from the sealing key (RFC 5869)."""
    return sealing.derive(sealing_key, _LABEL)


def seal(key: bytes, secret: str, tenant_id: str, username: str) -> str:
    """`secret` encrypted and bound to its owner."""
    return sealing.seal(key, secret, (tenant_id, username))


def unseal(key: bytes, value: str, tenant_id: str, username: str) -> str:
    """The secret `seal` sealed for this owner, or SecretUnreadable."""
    return sealing.unseal(key, value, (tenant_id, username))


def opened(key: bytes, value: str, tenant_id: str, username: str) -> str | None:
    """The secret sealed in `value` for this owner, or None when there is none or it does not open (another key,
    altered, moved): a factor that cannot be read accepts no code."""
    if not value:
        return None
    try:
        return unseal(key, value, tenant_id, username)
    except SecretUnreadable:
        return None
