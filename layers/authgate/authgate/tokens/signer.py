"""The signer interface and JWS compact serialization (RFC 7515 sections 3.1 and 5.1).

A signer turns a JWS signing input into the raw JWS signature for its key. Two backends
implement it: `signer_local` (private key from Secrets Manager, held in memory) and
`signer_kms` (every signature is a KMS Sign call). Key records say which backend made them.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from authgate.stores.keys import KeyRecord

# JWS alg -> (JWK kty, RFC 7518 section 3.1)
ALGORITHMS = {"RS256": "RSA", "ES256": "EC"}


class Signer(Protocol):
    @property
    def kid(self) -> str: ...

    @property
    def alg(self) -> str: ...

    def sign(self, signing_input: bytes) -> bytes:
        """The JWS signature over `signing_input` (for ES256: r || s, 64 bytes)."""
        ...


class Backend(Protocol):
    def create_key(self, kid: str, alg: str) -> tuple[dict[str, str], dict[str, Any]]:
        """Make a key pair; returns the record's reference fields and the public JWK."""
        ...

    def load_signer(self, record: KeyRecord) -> Signer: ...

    def destroy(self, record: KeyRecord) -> None:
        """Schedule deletion of the private key of a retired key."""
        ...


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def encode_json(value: dict[str, Any]) -> str:
    return b64url(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def compact(header: dict[str, Any], claims: dict[str, Any], signer: Signer) -> str:
    """header.payload.signature, signed by `signer` (RFC 7515 section 7.1)."""
    signing_input = f"{encode_json(header)}.{encode_json(claims)}"
    return f"{signing_input}.{b64url(signer.sign(signing_input.encode('ascii')))}"


def backend(name: str) -> Backend:
    """The backend that creates and loads keys of kind `name` (local | kms)."""
    if name == "kms":
        from authgate.tokens.signer_kms import KmsBackend

        return KmsBackend()
    if name == "local":
        from authgate.tokens.signer_local import LocalBackend

        return LocalBackend()
    raise ValueError(f"unknown signing backend {name!r}")
