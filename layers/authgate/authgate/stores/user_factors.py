"""A user's second factors in UsersTable: one-time codes (RFC 6238) and recovery codes, on the user's item.

The rules are authgate.users (totp, recovery_codes, sealed_secrets); this module keeps them:
- enrolment is two steps: `start_totp` seals a new secret as pending, `confirm_totp` makes it the
  user's once a first code from it is right, and hands out ten recovery codes (shown once, stored
  as hashes);
- `verify_totp` and `verify_recovery_code` are sign-in attempts under the account's throttle
  (UserStore.attempt: failures count toward the lock exactly as wrong passwords do); the write that
  accepts a code is conditional, so a TOTP time step is accepted at most once (replay within its
  window refused, RFC 6238 5.2) and a recovery code is consumed once; `verify_with_code` checks a
  password and a code in the same single attempt (the sign-in form's optional code field);
- `reset` (an operator's `authgate users reset-mfa`) removes every factor and sets
  `sessions_valid_after`, so sessions and refresh tokens issued before end.
Secrets are sealed under a key derived from the stack's session secret; nothing here logs them.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from authgate import clock, records
from authgate.records import n, s, ss
from authgate.stores.session_secret import session_secret
from authgate.stores.sign_in_attempts import Success, password_check
from authgate.stores.user_items import key
from authgate.stores.users import UserStore
from authgate.users import recovery_codes, totp
from authgate.users.errors import NoPendingEnrolment, UserNotFound
from authgate.users.model import FACTOR_FIELDS, LoginResult, SecondFactors
from authgate.users.passwords import check_password, dummy_hash
from authgate.users.sealed_secrets import SecretUnreadable, factor_key, seal, unseal

# How long a started enrolment waits for its first code.
PENDING_SECONDS = 15 * 60


def _factor_key() -> bytes:
    return factor_key(session_secret())


def _totp_check(tenant_id: str, username: str, code: str, now: int) -> Callable[[dict[str, Any]], Success | None]:
    """An attempt's check of a one-time code: right, and its step accepted on condition it was not before."""
    def check(stored: dict[str, Any]) -> Success | None:
        sealed = records.from_item(FACTOR_FIELDS, stored["item"])["totp_secret"]
        if not sealed:
            return None
        try:
            secret = unseal(_factor_key(), sealed, tenant_id, username)
        except SecretUnreadable:
            return None
        step = totp.matching_step(secret, code, now)
        if step is None:
            return None
        # Accepted at most once: a later write of the same or an earlier step fails its condition.
        return Success("SET totp_last_step = :step", {":step": n(step)},
                       "attribute_not_exists(totp_last_step) OR totp_last_step < :step")

    return check


def _recovery_check(code: str) -> Callable[[dict[str, Any]], Success | None]:
    """An attempt's check of a recovery code: one of the user's, consumed by the write that accepts it."""
    hashed = recovery_codes.hash_code(code)

    def check(stored: dict[str, Any]) -> Success | None:
        held = records.from_item(FACTOR_FIELDS, stored["item"])["recovery_codes"]
        # Every stored hash is compared, in constant time each.
        matched = [h for h in held if hmac.compare_digest(h, hashed)]
        if not matched:
            return None
        return Success(values={":code": ss([hashed]), ":one": s(hashed)},
                       condition="contains(recovery_codes, :one)", other="DELETE recovery_codes :code")

    return check


class UserFactorStore(UserStore):
    """The second-factor attributes of UsersTable's items (the same table as UserStore)."""

    name = "user_factors"

    def factors(self, tenant_id: str, username: str) -> SecondFactors | None:
        """What the user has (no secret), or None for no such user."""
        item = self.find(key(tenant_id, username), "factors")
        if item is None:
            return None
        values = records.from_item(FACTOR_FIELDS, item)
        return SecondFactors(totp=bool(values["totp_secret"]), totp_pending=bool(values["totp_pending"]),
                             recovery_codes_left=len(values["recovery_codes"]),
                             sessions_valid_after=values["sessions_valid_after"])

    def start_totp(self, tenant_id: str, username: str) -> str:
        """A new secret, stored sealed as the user's pending one (replacing any pending); returned in plain text
        once, for the enrolment page's QR code and text. UserNotFound when there is no such user."""
        secret = totp.new_secret()
        self._update_user(tenant_id, username, "start_totp", "SET totp_pending = :p, totp_pending_at = :now",
                          {":p": s(seal(_factor_key(), secret, tenant_id, username)), ":now": n(clock.seconds())})
        return secret

    def confirm_totp(self, tenant_id: str, username: str, code: str) -> tuple[str, ...] | None:
        """Make the pending secret the user's when `code` is one of its codes: the ten recovery codes (shown
        once), or None for a wrong code. NoPendingEnrolment when none was started, or it expired or was replaced."""
        item = self.find(key(tenant_id, username), "confirm_totp")
        values = records.from_item(FACTOR_FIELDS, item or {})
        now = clock.seconds()
        if not values["totp_pending"] or now - values["totp_pending_at"] > PENDING_SECONDS:
            raise NoPendingEnrolment(username)
        try:
            secret = unseal(_factor_key(), values["totp_pending"], tenant_id, username)
        except SecretUnreadable:
            raise NoPendingEnrolment(username) from None
        step = totp.matching_step(secret, code, now)
        if step is None:
            return None
        codes = recovery_codes.new_codes()
        with self.faults("confirm_totp", refused=lambda: NoPendingEnrolment(username)):
            self.db.update_item(
                TableName=self.table, Key=key(tenant_id, username),
                UpdateExpression="SET totp_secret = :p, totp_last_step = :step, recovery_codes = :codes "
                                 "REMOVE totp_pending, totp_pending_at",
                # The pending secret the code was checked against, still the pending one.
                ConditionExpression="totp_pending = :p",
                ExpressionAttributeValues={":p": s(values["totp_pending"]), ":step": n(step),
                                           ":codes": ss(recovery_codes.hash_code(c) for c in codes)})
        return codes

    def set_totp(self, tenant_id: str, username: str, secret: str) -> None:
        """Give the user a confirmed one-time-code secret as it is (the demo seed's published one); no recovery
        codes. UserNotFound when there is no such user."""
        self._update_user(tenant_id, username, "set_totp",
                          "SET totp_secret = :p REMOVE totp_pending, totp_pending_at, totp_last_step",
                          {":p": s(seal(_factor_key(), secret, tenant_id, username))})

    def verify_totp(self, tenant_id: str, username: str, code: str) -> LoginResult:
        """A one-time code as a sign-in's second factor: right, of a step not used before (RFC 6238 5.2)."""
        return self.attempt(tenant_id, username, _totp_check(tenant_id, username, code, clock.seconds()))

    def verify_recovery_code(self, tenant_id: str, username: str, code: str) -> LoginResult:
        """A recovery code as a sign-in's second factor, consumed by the write that accepts it."""
        return self.attempt(tenant_id, username, _recovery_check(code))

    @staticmethod
    def code_check(tenant_id: str, username: str, code: str) -> Callable[[dict[str, Any]], Success | None]:
        """An attempt's check (UserStore.attempt, UserStore.judged) of a one-time code, or of a recovery code when
        it cannot be one."""
        if totp.normalized(code) is not None:
            return _totp_check(tenant_id, username, code, clock.seconds())
        return _recovery_check(code)

    def verify_with_code(self, tenant_id: str, username: str, password: str, code: str) -> LoginResult:
        """A password and a one-time or recovery code in ONE attempt under the account's throttle: one failure
        whichever is wrong, and the success write that resets the throttle also accepts the code (its TOTP step
        recorded on condition, RFC 6238 5.2, or the recovery code consumed). Both are always checked, so the
        work done says nothing about which was wrong."""
        factor, first = self.code_check(tenant_id, username, code), password_check(password)

        def check(stored: dict[str, Any]) -> Success | None:
            known, second = first(stored), factor(stored)
            return known.joined(second) if known is not None and second is not None else None

        return self.attempt(tenant_id, username, check, refused_work=lambda: check_password(password, dummy_hash()))

    def remove_totp(self, tenant_id: str, username: str) -> None:
        """Remove the user's one-time-code secret (confirmed or pending) and recovery codes (the account page, after
        a right code). UserNotFound when there is no such user."""
        self._update_user(tenant_id, username, "remove_totp", "SET updated_at = :now REMOVE totp_secret, "
                          "totp_pending, totp_pending_at, totp_last_step, recovery_codes", {":now": n(clock.seconds())})

    def reset(self, tenant_id: str, username: str) -> int:
        """Remove every second factor and end the user's sessions (sessions_valid_after = now); returns that time.
        UserNotFound when there is no such user."""
        now = clock.seconds()
        self._update_user(tenant_id, username, "reset", "SET sessions_valid_after = :now REMOVE totp_secret, "
                          "totp_pending, totp_pending_at, totp_last_step, recovery_codes ADD session_generation :one",
                          {":now": n(now), ":one": n(1)})
        return now

    def _update_user(self, tenant_id: str, username: str, operation: str, update: str, values: dict[str, Any]) -> None:
        """One UpdateItem of an existing user's item; UserNotFound when there is none."""
        with self.faults(operation, refused=lambda: UserNotFound(username)):
            self.db.update_item(TableName=self.table, Key=key(tenant_id, username), UpdateExpression=update,
                                ConditionExpression="attribute_exists(username)", ExpressionAttributeValues=values)
