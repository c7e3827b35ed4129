"""A user who signs in, and the sign-in throttle's rules (RFC 9700 4.x brute force; NIST 800-63B 5.2.2).

Throttling, per user, counted in `failed_logins` (consecutive failures since the last success):
- the first FREE_ATTEMPTS failures cost nothing;
- from then on every attempt must wait 2**(failures - FREE_ATTEMPTS) seconds after the previous
  one (1, 2, 4 ... capped at MAX_DELAY); an attempt inside the window is refused unchecked;
- the LOCK_AFTER-th consecutive failure locks the account for LOCK_SECONDS, then counting restarts.
stores.users applies them with conditional writes.
"""

from __future__ import annotations

import secrets
from typing import Literal, NamedTuple

from authgate.records import Field

FREE_ATTEMPTS = 3
MAX_DELAY = 60
LOCK_AFTER = 10
LOCK_SECONDS = 15 * 60


def delay_after(failures: int) -> int:
    """Seconds an attempt must wait after `failures` consecutive failures."""
    if failures < FREE_ATTEMPTS:
        return 0
    return min(int(2 ** (failures - FREE_ATTEMPTS)), MAX_DELAY)


def new_user_id() -> str:
    """A stable, opaque, never reused user id: OIDC Core 2 `sub` ("usr_" + 22 url-safe random characters)."""
    return "usr_" + secrets.token_urlsafe(16)[:22]


class User(NamedTuple):
    tenant_id: str
    username: str
    failed_logins: int
    locked_until: int
    # OIDC Core 2 `sub`: assigned at creation ("" only on a record written before ids existed,
    # which gets one at its next sign-in).
    user_id: str = ""
    # What the profile and email scopes return (OIDC Core 5.4, 5.1).
    name: str = ""
    email: str = ""
    email_verified: bool = False
    disabled: bool = False
    updated_at: int = 0
    # Every session and refresh token issued to the user before this instant is dead (epoch seconds).
    sessions_valid_after: int = 0
    created_at: int = 0


class LoginResult(NamedTuple):
    """Outcome of one login attempt. `reason` is for logs; callers show one message for all failures."""

    ok: bool
    reason: Literal["ok", "invalid", "throttled", "locked"]
    subject: str = ""
    # The signed-in user's OIDC `sub` (authgate.users.model.User.user_id).
    user_id: str = ""


# A user's attributes as the store reads them back (the password hash is never part of a User).
FIELDS = (
    Field("tenant_id", "S"),
    Field("username", "S"),
    Field("failed_logins", "N", 0),
    Field("locked_until", "N", 0, omit_empty=True),
    Field("user_id", "S", "", omit_empty=True),
    Field("name", "S", "", omit_empty=True),
    Field("email", "S", "", omit_empty=True),
    Field("email_verified", "BOOL", False, omit_empty=True),
    Field("disabled", "BOOL", False, omit_empty=True),
    Field("updated_at", "N", 0, omit_empty=True),
    Field("sessions_valid_after", "N", 0, omit_empty=True),
    Field("created_at", "N", 0, omit_empty=True),
)
