"""What only `authgate idps` takes: secrets and keys read from files.

The fields' checks are the console's too (authgate.administration.identity_provider_input, kept here under their
names); this module reads the files they come in (a secret never on the command line, where `ps` and the shell's
history would keep it) and the JWK Set an IdP trusted for ID-JAGs signs with (the console takes it pasted).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from authgate.administration.identity_provider_input import (
    BOTH_KEYS,
    MAX_JWKS,
    MAX_KEY_FILE,
    MAX_SECRET,
    apple_private_key,
    client_secret,
    issuer,
    jwks,
    jwks_uri,
    record_issuer,
)
from authgate_cli.admin import arguments

__all__ = ["BOTH_KEYS", "apple_private_key_file", "client_secret_file", "issuer", "jwks_file", "jwks_uri", "record_issuer"]


def _read(path: str, flag: str, limit: int) -> str:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise arguments.InvalidInput(f"{flag} {path!r} cannot be read ({exc.strerror})") from None
    if len(raw) > limit:
        raise arguments.InvalidInput(f"{flag} {path!r} is larger than {limit} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise arguments.InvalidInput(f"{flag} {path!r} is not UTF-8 text") from None


def jwks_file(value: str) -> tuple[dict[str, Any], ...]:
    """A file holding the IdP's JWK Set: public signing keys only (RS256, PS256, ES256, EdDSA)."""
    return jwks(_read(value, "--jwks-file", MAX_JWKS), f"--jwks-file {value!r}")


def client_secret_file(path: str) -> str:
    """The client secret the IdP issued, alone in a file (one trailing line break allowed)."""
    return client_secret(_read(path, "--client-secret-file", MAX_SECRET), f"--client-secret-file {path!r}")


def apple_private_key_file(path: str) -> str:
    """Apple's .p8 download: an EC P-256 private key in PEM (PKCS #8)."""
    return apple_private_key(_read(path, "--apple-private-key-file", MAX_KEY_FILE), f"--apple-private-key-file {path!r}")
