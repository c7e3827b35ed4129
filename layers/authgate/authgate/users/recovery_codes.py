"""Recovery codes: ten single-use codes shown once at enrolment, kept only as SHA-256 hashes.

Each code is 16 base32 characters (80 random bits), shown as four groups of four; a person may
type it with or without the dashes, in any case. 80 bits make a plain SHA-256 hash as hard to
reverse as a slow password hash of a password: no code can be found from a leaked table.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable

COUNT = 10
_BYTES = 10  # 80 bits -> 16 base32 characters


def new_codes() -> tuple[str, ...]:
    """COUNT fresh codes, as a person reads them (xxxx-xxxx-xxxx-xxxx, lower case)."""
    codes = []
    for _ in range(COUNT):
        raw = base64.b32encode(secrets.token_bytes(_BYTES)).decode("ascii").lower()
        codes.append("-".join(raw[i:i + 4] for i in range(0, len(raw), 4)))
    return tuple(codes)


def hash_code(code: str) -> str:
    """The stored form of a code as typed: dashes and spaces removed, lower case, SHA-256 hex."""
    cleaned = code.replace("-", "").replace(" ", "").lower()
    return hashlib.sha256(b"authgate-recovery-code\x00" + cleaned.encode("utf-8")).hexdigest()


def matched(held: Iterable[str], code: str) -> str | None:
    """The stored hash among `held` that `code` is, or None; every hash is compared, each in constant time."""
    hashed = hash_code(code)
    matches = [h for h in held if hmac.compare_digest(h, hashed)]
    return hashed if matches else None
