"""A secret at rest: AES-256-GCM (NIST SP 800-38D) under a key derived from the stack's sealing key, bound to its owner.

Each kind of secret gets its own key, HKDF-SHA256 (RFC 5869) of the stack's sealing key with the
kind's label, so no two uses ever share a key. The associated data is the secret's owner (a
tenant and a username, or a tenant, an identity provider and the field), so a sealed value
copied onto another record does not open. A sealed value is "v1." + base64url(nonce ||
ciphertext || tag). Rotating the sealing key makes every sealed value unreadable: what was
sealed is entered again (docs/strong-authentication.md, docs/federation.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from authgate import base64url

PREFIX = "v1."
_NONCE = 12


class SecretUnreadable(ValueError):
    """A sealed value that does not open under this key for this owner (another key, altered, moved)."""


def derive(sealing_key: bytes, label: bytes) -> bytes:
    """The AES-256 key of one kind of secret (RFC 5869, `label` as info)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=label).derive(sealing_key)


def _owner(owner: Sequence[str]) -> bytes:
    return b"\x00".join(part.encode("utf-8") for part in owner)


def seal(key: bytes, secret: str, owner: Sequence[str]) -> str:
    """`secret` encrypted under `key` and bound to `owner`."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = secrets.token_bytes(_NONCE)
    return PREFIX + base64url.encode(nonce + AESGCM(key).encrypt(nonce, secret.encode("utf-8"), _owner(owner)))


def unseal(key: bytes, value: str, owner: Sequence[str]) -> str:
    """The secret `seal` sealed for `owner`, or SecretUnreadable."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if not value.startswith(PREFIX):
        raise SecretUnreadable("not a sealed secret")
    try:
        raw = base64url.decode(value[len(PREFIX):])
        return AESGCM(key).decrypt(raw[:_NONCE], raw[_NONCE:], _owner(owner)).decode("utf-8")
    except (ValueError, InvalidTag):
        raise SecretUnreadable("the sealed secret does not open for this owner") from None
