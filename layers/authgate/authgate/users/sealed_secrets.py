"""A factor's secret at rest: AES-256-GCM (NIST SP 800-38D) under a key derived from the stack's sealing key.

The key is HKDF-SHA256 (RFC 5869) of the sealing key (stores.sealing_key) with its own label, so
it is never the consent form's MAC key; the associated data is the secret's owner (tenant,
username), so a sealed secret copied onto another user's item does not open. A sealed value is
"v1." + base64url(nonce || ciphertext || tag). Rotating the sealing key (the SessionSecret secret)
makes sealed secrets unreadable: docs/strong-authentication.md says what an operator does then
(reset the users' factors).
"""

from __future__ import annotations

import secrets

from authgate import base64url

_LABEL = b"authgate second-factor secrets v1"
_PREFIX = "v1."
_NONCE = 12


class SecretUnreadable(ValueError):
    """A sealed secret that does not open under this key for this owner (another key, altered, moved)."""


def factor_key(sealing_key: bytes) -> bytes:
    """The AES-256 key of second-factor secrets, derived from the sealing key (RFC 5869)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_LABEL).derive(sealing_key)


def _owner(tenant_id: str, username: str) -> bytes:
    return tenant_id.encode("utf-8") + b"\x00" + username.encode("utf-8")


def seal(key: bytes, secret: str, tenant_id: str, username: str) -> str:
    """`secret` encrypted and bound to its owner."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = secrets.token_bytes(_NONCE)
    sealed = AESGCM(key).encrypt(nonce, secret.encode("utf-8"), _owner(tenant_id, username))
    return _PREFIX + base64url.encode(nonce + sealed)


def unseal(key: bytes, value: str, tenant_id: str, username: str) -> str:
    """The secret `seal` sealed for this owner, or SecretUnreadable."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if not value.startswith(_PREFIX):
        raise SecretUnreadable("not a sealed secret")
    try:
        raw = base64url.decode(value[len(_PREFIX):])
        return AESGCM(key).decrypt(raw[:_NONCE], raw[_NONCE:], _owner(tenant_id, username)).decode("utf-8")
    except (ValueError, InvalidTag):
        raise SecretUnreadable("the sealed secret does not open for this owner") from None


def opened(key: bytes, value: str, tenant_id: str, username: str) -> str | None:
    """The secret sealed in `value` for this owner, or None when there is none or it does not open (another key,
    altered, moved): a factor that cannot be read accepts no code."""
    if not value:
        return None
    try:
        return unseal(key, value, tenant_id, username)
    except SecretUnreadable:
        return None
