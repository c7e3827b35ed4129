"""base64url without padding (RFC 4648 section 5, as RFC 7515 section 2 uses it): the one helper.

JWS segments, JWK members, PKCE challenges, password hashes, consent-form state and pagination
cursors all use this encoding; decoding accepts input with or without padding.
"""

from __future__ import annotations

import base64


def encode(data: bytes) -> str:
    """`data` as base64url text, `=` padding stripped."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode(text: str) -> bytes:
    """The bytes of base64url `text` (padding optional); binascii.Error or ValueError when malformed."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
