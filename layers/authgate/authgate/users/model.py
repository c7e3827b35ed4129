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


class User(NamedTuple):
    """A person of a tenant: the key, the sign-in throttle's state, the profile and the account's switches.

    `user_id` is stable and never reused (OIDC Core 2 `sub`: a username can come back after a
    delete); ending the user's sessions (disable, password reset or change, factors reset) sets
    `sessions_valid_after` (epoch seconds, for people to read) and adds one to `session_generation`:
    every session and grant records the generation it was made in, and stands only while it is the
    user's (`admits`)."""

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
    must_change_password: bool = False
    sessions_valid_after: int = 0
    created_at: int = 0
    updated_at: int = 0
    session_generation: int = 0
    # Made for a person of an identity provider (federation.identities) and given no password: signs in only
    # through a linked identity; a password attempt is refused as for a disabled account. Setting a password
    # (an operator's reset, the person's own reset by mail) ends it.
    federated_only: bool = False

    def locked(self, now: int) -> bool:
        """True while the sign-in throttle's lock holds."""
        return self.locked_until > now

    def admits(self, user_id: str, generation: int, issued_at: int) -> bool:
        """Whether a session or grant of this user's sign-in still stands: the account is enabled, it is the
        same person (a username can come back after a delete), and no end of sessions came since the
        sign-in — told by the generation, which is exact where whole seconds are not (a sign-in and a
        disable in the same second). A sign-in of generation 0 (none ended since, or recorded before
        generations existed) falls back to the seconds of `issued_in_time`."""
        if self.disabled or user_id != self.user_id or generation != self.session_generation:
            return False
        return generation > 0 or issued_at > self.sessions_valid_after

    def issued_in_time(self, issued_at: int) -> bool:
        """Whether something issued to this user at `issued_at` still stands: the account is enabled and it
        was issued after the second of `sessions_valid_after` (a token of that very second is dead too: the
        field counts whole seconds, and what was issued alongside the change may predate it)."""
        return not self.disabled and issued_at > self.sessions_valid_after


def token_subject(user: User) -> str:
    """The `sub` of a token issued for `user`: their stable user_id (OpenID Connect Core 2: never reassigned; a
    username can come back after a delete), as ID tokens and UserInfo state it."""
    return user.user_id


# Why a sign-in attempt ended as it did, for logs and the audit trail: "factor_locked" when the second factor's own
# throttle (authgate.users.factor_throttle) refused a code typed beside the password; "second_factor_failed" for a
# right password beside a wrong code; "no_password" for a federated-only user (User.federated_only).
Reason = Literal["ok", "invalid", "throttled", "locked", "disabled", "factor_locked", "no_password",
                 "second_factor_failed"]


class LoginResult(NamedTuple):
    """Outcome of one login attempt. `reason` is for logs; callers show one message for all failures."""

    ok: bool
    reason: Reason
    subject: str = ""
    # The signed-in user's OIDC `sub` (User.user_id).
    user_id: str = ""
    # The operator reset the password: the sign-in must set a new one before anything is issued.
    must_change_password: bool = False
    # The user's session_generation at this sign-in (User.admits).
    generation: int = 0
    # Whether the user holds a confirmed one-time-code secret, as the attempt's own read saw it (None: not read).
    totp: bool | None = None
    # Whether the user holds a passkey, as the attempt's own read counted it (None: not read, or not counted).
    passkeys: bool | None = None
    # A refused attempt: the user_id of the account it named, when that exists (for the audit trail only: the
    # person signing in is never told), and whether this failure locked the account.
    named: str = ""
    locked_now: bool = False


def new_user_id() -> str:
    """A fresh user id: "usr_" and 22 url-safe random characters (128 bits), never reused."""
    return "usr_" + secrets.token_urlsafe(16)


def email_lower(email: str) -> str:
    """The form emails are compared and looked up in (the UsersByEmail index): lower-cased."""
    return email.lower()


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
    Field("must_change_password", "BOOL", False, omit_empty=True),
    Field("sessions_valid_after", "N", 0, omit_empty=True),
    Field("created_at", "N", 0, omit_empty=True),
    Field("updated_at", "N", 0, omit_empty=True),
    Field("session_generation", "N", 0, omit_empty=True),
    Field("federated_only", "BOOL", False, omit_empty=True),
)


class SecondFactors(NamedTuple):
    """A user's second factors as a sign-in or the account page needs to know them (never their secrets)."""

    # A confirmed one-time-code (TOTP, RFC 6238) secret is held.
    totp: bool
    # An enrolment was started and not yet confirmed by a first code.
    totp_pending: bool
    recovery_codes_left: int
    # Epoch seconds: every session and refresh token issued to the user before it is dead (0: none).
    sessions_valid_after: int


# A user's factor attributes (stores.user_factors); the secrets are sealed (users.sealed_secrets), the
# recovery codes SHA-256 hashes (users.recovery_codes). None is public.
FACTOR_FIELDS = (
    Field("totp_secret", "S", "", omit_empty=True, public=False),
    Field("totp_pending", "S", "", omit_empty=True, public=False),
    Field("totp_pending_at", "N", 0, omit_empty=True),
    Field("totp_last_step", "N", 0, omit_empty=True),
    Field("recovery_codes", "SET", (), omit_empty=True, public=False),
    Field("sessions_valid_after", "N", 0, omit_empty=True),
)
