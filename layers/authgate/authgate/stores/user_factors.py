"""A user's second factors in UsersTable: one-time codes (RFC 6238) and recovery codes, on the user's item.

The rules are authgate.users' (totp: codes, their steps and how long an enrolment waits; recovery_codes;
sealed_secrets: how a secret is kept); this module reads and writes the attributes they need:
- enrolment is two steps: `start_totp` seals a new secret as pending, `confirm_totp` makes it the
  user's once a first code from it is right, and hands out ten recovery codes (shown once, stored
  as hashes); a new factor, like a removed one, takes no count of wrong codes with it;
- every check of a code as a sign-in's second factor is stores.factor_attempts, under the factor's
  own throttle;
- `reset` (an operator's `authgate users reset-mfa`) removes every factor and its throttle's count, and sets
  `sessions_valid_after`, so sessions and refresh tokens issued before end.
Secrets are sealed under a key derived from the stack's sealing key; nothing here logs them.
"""

from __future__ import annotations

from typing import Any

from authgate import clock, records
from authgate.records import n, s, ss
from authgate.stores.sealing_key import factor_sealing_key
from authgate.stores.user_items import key
from authgate.stores.users import UserStore
from authgate.users import recovery_codes, totp
from authgate.users.errors import NoPendingEnrolment, UserNotFound
from authgate.users.model import FACTOR_FIELDS, SecondFactors
from authgate.users.sealed_secrets import opened, seal


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
                          {":p": s(seal(factor_sealing_key(), secret, tenant_id, username)), ":now": n(clock.seconds())})
        return secret

    def confirm_totp(self, tenant_id: str, username: str, code: str) -> tuple[str, ...] | None:
        """Make the pending secret the user's when `code` is one of its codes: the ten recovery codes (shown
        once), or None for a wrong code. NoPendingEnrolment when none was started, or it expired or was replaced."""
        item = self.find(key(tenant_id, username), "confirm_totp")
        values = records.from_item(FACTOR_FIELDS, item or {})
        now = clock.seconds()
        if not values["totp_pending"] or not totp.enrolment_open(values["totp_pending_at"], now):
            raise NoPendingEnrolment(username)
        secret = opened(factor_sealing_key(), values["totp_pending"], tenant_id, username)
        if secret is None:
            raise NoPendingEnrolment(username)
        step = totp.matching_step(secret, code, now)
        if step is None:
            return None
        codes = recovery_codes.new_codes()
        with self.faults("confirm_totp", refused=lambda: NoPendingEnrolment(username)):
            self.db.update_item(
                TableName=self.table, Key=key(tenant_id, username),
                UpdateExpression="SET totp_secret = :p, totp_last_step = :step, recovery_codes = :codes "
                                 "REMOVE totp_pending, totp_pending_at, factor_failures, factor_failed_at",
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
                          {":p": s(seal(factor_sealing_key(), secret, tenant_id, username))})

    def remove_totp(self, tenant_id: str, username: str) -> None:
        """Remove the user's one-time-code secret (confirmed or pending) and recovery codes (the account page, after
        a right code). UserNotFound when there is no such user."""
        self._update_user(tenant_id, username, "remove_totp", "SET updated_at = :now REMOVE totp_secret, "
                          "totp_pending, totp_pending_at, totp_last_step, recovery_codes, factor_failures, factor_failed_at",
                          {":now": n(clock.seconds())})

    def reset(self, tenant_id: str, username: str) -> int:
        """Remove every second factor and end the user's sessions (sessions_valid_after = now); returns that time.
        UserNotFound when there is no such user."""
        now = clock.seconds()
        self._update_user(tenant_id, username, "reset", "SET sessions_valid_after = :now REMOVE totp_secret, "
                          "totp_pending, totp_pending_at, totp_last_step, recovery_codes, factor_failures, "
                          "factor_failed_at ADD session_generation :one",
                          {":now": n(now), ":one": n(1)})
        return now

    def _update_user(self, tenant_id: str, username: str, operation: str, update: str, values: dict[str, Any]) -> None:
        """One UpdateItem of an existing user's item; UserNotFound when there is none."""
        with self.faults(operation, refused=lambda: UserNotFound(username)):
            self.db.update_item(TableName=self.table, Key=key(tenant_id, username), UpdateExpression=update,
                                ConditionExpression="attribute_exists(username)", ExpressionAttributeValues=values)
