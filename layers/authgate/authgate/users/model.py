"""A user who signs in, and the sign-in throttle's rules (RFC 9700 4.x brute force; NIST 800-63B 5.2.2).

Throttling, per user, counted in `failed_logins` (consecutive failures since the last success):
- the first FREE_ATTEMPTS failures cost nothing;
- from then on every attempt must wait 2**(failures - FREE_ATTEMPTS) seconds after the previous
  one (1, 2, 4 ... capped at MAX_DELAY); an attempt inside the window is refused unchecked;
- the LOCK_AFTER-th consecutive failure locks the account for LOCK_SECONDS, then counting restarts.
stores.users applies them with conditional writes.
"""

from __future__ import annotations

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


class User(NamedTuple):
    tenant_id: str
    username: str
    failed_logins: int
    locked_until: int


def token_subject(user: User) -> str:
    """The `sub` of a token issued for `user`: the one place it is decided (today the username; the user_id
    once users carry one, OpenID Connect Core 2)."""
    return user.username


class LoginResult(NamedTuple):
    """Outcome of one login attempt. `reason` is for logs; callers show one message for all failures."""

    ok: bool
    reason: Literal["ok", "invalid", "throttled", "locked"]
    subject: str = ""


# A user's attributes as the store reads them back (the password hash is never part of a User).
FIELDS = (
    Field("tenant_id", "S"),
    Field("username", "S"),
    Field("failed_logins", "N", 0),
    Field("locked_until", "N", 0, omit_empty=True),
)
