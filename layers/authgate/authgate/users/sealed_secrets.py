"""A factor's secret at rest, sealed (authgate.sealing) under a key derived from the stack's session secret.

Its own HKDF label, so the key is never the consent form's MAC key nor another kind of secret's;
the owner is (tenant, username), so a sealed secret copied onto another user's item does not
open. Rotating the session secret makes sealed secrets unreadable: docs/strong-authentication.md
says what an operator does then (reset the users' factors).
"""

from __future__ import annotations

from authgate import sealing
from authgate.sealing import SecretUnreadable

__all__ = ["SecretUnreadable", "factor_key", "seal", "unseal"]

_LABEL = b"authgate second-factor secrets v1"


def factor_key(session_secret: bytes) -> bytes:
    """The AES-256 key of second-factor secrets, derived from the session secret (RFC 5869)."""
    return sealing.derive(session_secret, _LABEL)


def seal(key: bytes, secret: str, tenant_id: str, username: str) -> str:
    """`secret` encrypted and bound to its owner."""
    return sealing.seal(key, secret, (tenant_id, username))


def unseal(key: bytes, value: str, tenant_id: str, username: str) -> str:
    """The secret `seal` sealed for this owner, or SecretUnreadable."""
    return sealing.unseal(key, value, (tenant_id, username))
