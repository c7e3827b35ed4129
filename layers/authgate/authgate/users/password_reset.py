"""A forgotten password's reset link: single-use, short-lived, stored hashed (docs/users.md, "Forgotten passwords").

The link carries 256 random bits; only their SHA-256 is stored (stores.password_resets, in
CodesTable beside the authorization codes, under a "reset#" key no code hash can equal). One
conditional write consumes it: of any number of uses at most one changes the password.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from authgate.records import Field

RESET_TTL = 15 * 60  # seconds a reset link works
KEY_PREFIX = "reset#"


class PasswordReset(NamedTuple):
    code_hash: str
    tenant_id: str
    username: str
    state: str  # issued | consumed
    issued_at: int
    expires_at: int


FIELDS = (
    Field("code_hash", "S"),
    Field("tenant_id", "S"),
    Field("username", "S"),
    Field("state", "S"),
    Field("issued_at", "N", 0),
    Field("expires_at", "N", 0),
)


def reset_key(token: str) -> str:
    """The stored key of a reset link's token."""
    return KEY_PREFIX + hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()
