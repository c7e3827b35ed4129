"""base64url without padding (RFC 4648 section 5, as RFC 7515 section 2 uses it): the one helper.

JWS segments, JWK members, PKCE challenges, password hashes, consent-form state and pagination
cursors all use this encoding. Decoding is strict, as a JWS validator's must be: only the
base64url alphabet, `=` padding optional but correct, and the canonical encoding only (the
unused bits of the last character zero), so one value has exactly one text.
"""

from __future__ import annotations

import base64
import binascii
import re

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")


def encode(data: bytes) -> str:
    """`data` as base64url text, `=` padding stripped."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode(text: str) -> bytes:
    """The bytes of base64url `text`; ValueError unless it is canonical base64url (padding optional)."""
    stripped = text.rstrip("=")
    padding = len(text) - len(stripped)
    if padding and (padding > 2 or len(text) % 4):
        raise ValueError("base64url: bad padding")
    if len(stripped) % 4 == 1 or not _ALPHABET.fullmatch(stripped):
        raise ValueError("base64url: not base64url text")
    try:
        data = base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    except binascii.Error:
        raise ValueError("base64url: not base64url text") from None
    if encode(data) != stripped:
        raise ValueError("base64url: not the canonical encoding")
    return data
