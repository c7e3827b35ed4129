"""PKCE (RFC 7636): verifier syntax (§4.1) and the S256 transformation (§4.2, §4.6)."""

from __future__ import annotations

import hashlib
import hmac
import re

from authgate import base64url

# code-verifier = 43*128unreserved; unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 7636 4.1).
VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
# S256 challenge: BASE64URL of a SHA-256 digest, no padding: always 43 characters (RFC 7636 4.2).
S256_CHALLENGE = re.compile(r"[A-Za-z0-9\-_]{43}")
METHODS = ("S256",)


def is_s256_challenge(challenge: str) -> bool:
    """True for a challenge S256 can produce: 43 base64url characters, canonically a 32-byte digest (RFC 7636 4.2)."""
    if S256_CHALLENGE.fullmatch(challenge) is None:
        return False
    try:
        return len(base64url.decode(challenge)) == hashlib.sha256().digest_size
    except ValueError:
        return False


def is_valid_verifier(verifier: str) -> bool:
    return VERIFIER.fullmatch(verifier) is not None


def s256(verifier: str) -> str:
    """BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) (RFC 7636 4.2)."""
    return base64url.encode(hashlib.sha256(verifier.encode("ascii")).digest())


def verify(verifier: str, challenge: str, method: str = "S256") -> bool:
    """RFC 7636 4.6: S256 only (plain is refused: RFC 9700 2.1.1); constant-time comparison."""
    if method != "S256" or not is_valid_verifier(verifier):
        return False
    return hmac.compare_digest(s256(verifier), challenge)
