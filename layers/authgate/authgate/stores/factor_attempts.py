"""Every check of a second factor's code, under its own throttle: one-time codes (RFC 6238) and recovery codes.

The one place a code is checked, whatever the page: the authorization endpoint's step and its password form
(a code typed beside the password), the device page's step, the account page's proof and the CIBA approval
page. The throttle's rules are authgate.users.factor_throttle; here its attributes are written:
- `verify_code` (a code alone, after a sign-in) reserves the attempt with one conditional write that counts
  it as a failure up front and refuses it while the factor is locked, so a burst of parallel guesses gets
  no more tries than a sequence would; the write that accepts a right code resets the count;
- `verify_with_code` (a code typed beside the password) is one attempt of the password's throttle
  (stores.sign_in_attempts) that the factor's lock also gates (a refusal then costs a scrypt and answers as
  a wrong password does, whatever the password: no oracle); a wrong password counts on the password's
  throttle, a right password beside a wrong code on the factor's, both right resets both;
- `judged_code` (the step's code, judged on the item its batch read) reserves nothing: a wrong code is
  counted at once (`counted`), a right one accepted in the step's transaction on condition that no failure
  was counted since the read.
A right password never resets the factor's count. A TOTP time step is accepted at most once (the write
that accepts it is conditional: replay within its window refused, RFC 6238 5.2) and a recovery code is
consumed once (the rules: users.totp.accepted_step, users.recovery_codes.matched; here, the conditional writes
that hold them). Enrolment (stores.user_factors.confirm_totp) checks a code of the pending secret the page
just showed, which is nobody's factor yet: there is nothing to guess there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from authgate import clock, records
from authgate.records import n, s, ss
from authgate.stores.faults import condition_failed
from authgate.stores.sealing_key import factor_sealing_key
from authgate.stores.sign_in_attempts import (
    Failure,
    Gate,
    SignInAttempts,
    Success,
    password_check,
    success_update,
)
from authgate.stores.user_items import EXISTS, ITEM_FIELDS, key, passkeys_held
from authgate.users import factor_throttle, recovery_codes, totp
from authgate.users.factor_throttle import LOCK_AFTER, LOCK_SECONDS, MAX_FAILURES, FactorThrottle
from authgate.users.model import FACTOR_FIELDS, FIELDS, LoginResult, User
from authgate.users.passwords import check_password, dummy_hash
from authgate.users.sealed_secrets import opened

# A code's failure, counted: the count moved and its time recorded (the lock runs from the latest).
COUNTED = "factor_failures = if_not_exists(factor_failures, :zero) + :one, factor_failed_at = :now"
NOT_DISABLED = "(attribute_not_exists(disabled) OR disabled = :off)"


def gate(now: int) -> Gate:
    """The factor's throttle as a condition: not at MAX_FAILURES, and below LOCK_AFTER or its last failure at least
    LOCK_SECONDS ago (users.factor_throttle.FactorThrottle.locked, in DynamoDB's words)."""
    return Gate("(attribute_not_exists(factor_failures) OR factor_failures < :f_lock OR (factor_failures < :f_max "
                "AND (attribute_not_exists(factor_failed_at) OR factor_failed_at <= :f_since)))",
                {":f_lock": n(LOCK_AFTER), ":f_max": n(MAX_FAILURES), ":f_since": n(now - LOCK_SECONDS)},
                "factor_locked")


def _reset(item: dict[str, Any]) -> Success:
    """A right code's reset of the count, on condition that no failure was counted since `item` was read."""
    if "factor_failures" in item:
        return Success("SET factor_failures = :f_zero", {":f_zero": n(0), ":f_seen": item["factor_failures"]},
                       "factor_failures = :f_seen", remove="factor_failed_at")
    return Success("SET factor_failures = :f_zero", {":f_zero": n(0)}, "attribute_not_exists(factor_failures)",
                   remove="factor_failed_at")


def _throttle(item: dict[str, Any]) -> FactorThrottle:
    values = records.from_item(factor_throttle.FIELDS, item)
    return FactorThrottle(values["factor_failures"], values["factor_failed_at"])


def _totp_check(tenant_id: str, username: str, code: str, now: int) -> Callable[[dict[str, Any]], Success | None]:
    """A check of a one-time code (users.totp.accepted_step: right, and of a step later than the last one used),
    accepted on condition that its step still is later (a concurrent use of the same code loses)."""
    def check(stored: dict[str, Any]) -> Success | None:
        factors = records.from_item(FACTOR_FIELDS, stored["item"])
        if not factors["totp_secret"]:
            return None
        secret = opened(factor_sealing_key(), factors["totp_secret"], tenant_id, username)
        step = totp.accepted_step(secret, code, now, factors["totp_last_step"])
        if step is None:
            return None
        # Accepted at most once: a later write of the same or an earlier step fails its condition.
        return Success("SET totp_last_step = :step", {":step": n(step)},
                       "attribute_not_exists(totp_last_step) OR totp_last_step < :step")

    return check


def _recovery_check(code: str) -> Callable[[dict[str, Any]], Success | None]:
    """A check of a recovery code (users.recovery_codes.matched), consumed by the write that accepts it."""
    def check(stored: dict[str, Any]) -> Success | None:
        hashed = recovery_codes.matched(records.from_item(FACTOR_FIELDS, stored["item"])["recovery_codes"], code)
        if hashed is None:
            return None
        return Success(values={":code": ss([hashed]), ":one_code": s(hashed)},
                       condition="contains(recovery_codes, :one_code)", other="DELETE recovery_codes :code")

    return check


def code_check(tenant_id: str, username: str, code: str) -> Callable[[dict[str, Any]], Success | None]:
    """The check of a one-time code, or of a recovery code when it cannot be one."""
    if totp.normalized(code) is not None:
        return _totp_check(tenant_id, username, code, clock.seconds())
    return _recovery_check(code)


class FactorAttempts(SignInAttempts):
    """The second factor's throttle on UsersTable's items, and every check of a code under it."""

    name = "factor_attempts"

    def verify_code(self, tenant_id: str, username: str, code: str) -> LoginResult:
        """A one-time or recovery code as the second factor of a sign-in made already (a session, the account page's
        sign-in): one reservation that counts it up front, one write that accepts it and resets the count."""
        now = clock.seconds()
        item_key = key(tenant_id, username)
        opened = gate(now)
        reserved, old = self.reserve(item_key, f"SET {COUNTED}",
                                     f"{EXISTS} AND {NOT_DISABLED} AND {opened.condition}",
                                     {":zero": n(0), ":one": n(1), ":now": n(now), ":off": {"BOOL": False},
                                      **opened.values})
        if reserved is None:
            user = User(**records.from_item(FIELDS, old)) if old else None
            return LoginResult(False, "invalid" if user is None else "disabled" if user.disabled else "factor_locked")
        stored = {**records.from_item(ITEM_FIELDS, reserved), "item": reserved}
        success = code_check(tenant_id, username, code)(stored)
        # The reservation counted this attempt: the reset holds on condition that no other was counted since.
        user_id = (self.succeeded(item_key, success.joined(_reset(reserved)), stored["user_id"], password=False)
                   if success is not None else None)
        if user_id is None:
            return LoginResult(False, "invalid")
        return LoginResult(True, "ok", subject=username, user_id=user_id, generation=int(stored["session_generation"]),
                           totp=bool(reserved.get("totp_secret")), passkeys=passkeys_held(reserved))

    def verify_with_code(self, tenant_id: str, username: str, password: str, code: str) -> LoginResult:
        """A password and a one-time or recovery code in ONE attempt of the password's throttle, gated by the
        factor's: a wrong password counts on the password's throttle, a right one beside a wrong code on the
        factor's, and the success write resets both and accepts the code (its TOTP step recorded on condition,
        RFC 6238 5.2, or the recovery code consumed). Both are always checked, so the work done says nothing about
        which was wrong; while the factor is locked nothing is checked, and the refusal costs a scrypt as a wrong
        password does."""
        now = clock.seconds()
        first, factor = password_check(password), code_check(tenant_id, username, code)

        def check(stored: dict[str, Any]) -> Success | Failure | None:
            known, second = first(stored), factor(stored)
            if known is None:
                return None
            if second is None:
                return Failure(COUNTED, {":zero": n(0), ":one": n(1), ":now": n(now)})
            return known.joined(second).joined(_reset(stored["item"]))

        return self.attempt(tenant_id, username, check, refused_work=lambda: check_password(password, dummy_hash()),
                            gate=gate(now))

    def judged_code(self, tenant_id: str, username: str, item: dict[str, Any] | None,
                    code: str) -> dict[str, Any] | None:
        """A code judged on the user's item as a batch read it (no reservation): its acceptance as a
        TransactWriteItems Update for the caller's transaction, or None (refused by the throttle, which writes
        nothing as a refused reservation does; or a wrong code, counted at once).

        The Update's condition is that nothing which matters changed since the read: no failure counted
        (`factor_failures` as read, so no lock either), not disabled, plus the code's own (a TOTP step not used
        since). So a burst of parallel guesses gets no more than one guess does: a right guess wins only if its
        write lands before every other guess's failure, and each failure is counted."""
        now = clock.seconds()
        if not item:
            return None
        user = User(**records.from_item(FIELDS, item))
        if user.disabled or _throttle(item).locked(now):
            return None
        success = code_check(tenant_id, username, code)({**records.from_item(ITEM_FIELDS, item), "item": item})
        if success is None:
            self.counted(tenant_id, username)
            return None
        accepted = success.joined(_reset(item))
        update, values = success_update(accepted, user.user_id, password=False)
        return {"Update": {"TableName": self.table, "Key": key(tenant_id, username), "UpdateExpression": update,
                           "ConditionExpression": f"{EXISTS} AND {NOT_DISABLED} AND {accepted.condition}",
                           "ExpressionAttributeValues": {**values, ":off": {"BOOL": False}}}}

    def counted(self, tenant_id: str, username: str) -> None:
        """A wrong code judged without a reservation (`judged_code`), or a right one whose acceptance was overtaken:
        one failure counted, which locks the factor from the LOCK_AFTER-th on."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("failure"):
                self.db.update_item(TableName=self.table, Key=key(tenant_id, username), ConditionExpression=EXISTS,
                                    UpdateExpression=f"SET {COUNTED}",
                                    ExpressionAttributeValues={":zero": n(0), ":one": n(1), ":now": n(clock.seconds())})
        except ClientError as exc:
            if not condition_failed(exc):
                raise
