"""Signing-key backends: where private keys live and how a signer for one is made.

Two backends: `local` (the private key in Secrets Manager, signing in memory) and `kms` (every
signature a KMS Sign call). Key records (stores.signing_keys) say which backend made them, so a
deployment can switch backends and still retire its old keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from authgate.stores.signing_keys import KeyRecord
    from authgate.tokens.jws import Signer


class Backend(Protocol):
    def create_key(self, kid: str, alg: str) -> tuple[dict[str, str], dict[str, Any]]:
        """Make a key pair; returns the record's reference fields and the public JWK."""
        ...

    def load_signer(self, record: KeyRecord) -> Signer: ...

    def destroy(self, record: KeyRecord) -> None:
        """Schedule deletion of the private key of a retired key."""
        ...


def backend(name: str) -> Backend:
    """The backend that creates and loads keys of kind `name` (local | kms)."""
    # Imported on use: a deployment signs with one backend, and never loads the other (docs/decisions.md, measured shortcuts).
    if name == "kms":
        from authgate.tokens.kms_backend import KmsBackend

        return KmsBackend()
    if name == "local":
        from authgate.tokens.local_backend import LocalBackend

        return LocalBackend()
    raise ValueError(f"unknown signing backend {name!r}")
