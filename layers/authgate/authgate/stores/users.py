"""Users (UsersTable): scrypt password hashes and login throttling (RFC 9700 4.x brute force; NIST 800-63B 5.2.2).

Throttling, per user, counted in `failed_logins` (consecutive failures since the last success):
- the first FREE_ATTEMPTS failures cost nothing;
- from then on every attempt must wait 2**(failures - FREE_ATTEMPTS) seconds after the previous
  one (1, 2, 4 ... capped at MAX_DELAY); an attempt inside the window is refused unchecked;
- the LOCK_AFTER-th consecutive failure locks the account for LOCK_SECONDS, then counting restarts.
Each attempt first reserves itself with one conditional write that also moves the window, so
a burst of parallel guesses gets no more tries than a sequence would. Unknown users, refused
attempts and wrong passwords look the same to the caller and cost one scrypt each.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from authgate import base64url, clock
from authgate.settings import get_settings
from authgate.stores.exceptions import UserExists
from authgate.stores.faults import condition_failed, dynamodb_faults

FREE_ATTEMPTS = 3
MAX_DELAY = 60
LOCK_AFTER = 10
LOCK_SECONDS = 15 * 60

# scrypt cost (RFC 7914): N=2**17, r=8, p=1, OWASP's current minimum (Password Storage Cheat
# Sheet): 128 MiB of memory per hash (the functions have 512 MiB); `make bench` (bench/sign_in.py)
# measures a sign-in. Stored with each hash, so a raise keeps old hashes working; a sign-in with an
# older cost rehashes the password at the current one (`needs_rehash`).
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN = 2**17, 8, 1, 32


def hash_password(password: str, *, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    """`scrypt$N$r$p$salt$hash` with a fresh 16-byte salt."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                            maxmem=128 * n * r * p + 1024 * 1024, dklen=SCRYPT_DKLEN)
    return f"scrypt${n}${r}${p}${base64url.encode(salt)}${base64url.encode(digest)}"


def check_password(password: str, encoded: str) -> bool:
    """Constant-time comparison against a stored `scrypt$...` hash; malformed hashes never match."""
    try:
        scheme, n, r, p, salt, expected = encoded.split("$")
        if scheme != "scrypt":
            return False
        n_, r_, p_ = int(n), int(r), int(p)
        digest = hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=base64url.decode(salt), n=n_, r=r_, p=p_,
                                maxmem=128 * n_ * r_ * p_ + 1024 * 1024, dklen=len(base64url.decode(expected)))
    except (ValueError, TypeError, UnicodeEncodeError):
        return False
    return hmac.compare_digest(digest, base64url.decode(expected))


def needs_rehash(encoded: str) -> bool:
    """True when a stored hash was made with another cost than the current one (so a sign-in upgrades it)."""
    return encoded.split("$")[1:4] != [str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P)]


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    # Work done for unknown users and refused attempts, so timing does not tell them apart.
    return hash_password(secrets.token_urlsafe(16))


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


class LoginResult(NamedTuple):
    """Outcome of one login attempt. `reason` is for logs; callers show one message for all failures."""

    ok: bool
    reason: Literal["ok", "invalid", "throttled", "locked"]
    subject: str = ""


class UserStore:
    """UsersTable: (tenant_id, username) -> password hash and throttling state."""

    def __init__(self, dynamodb: Any = None, table: str | None = None) -> None:
        if dynamodb is None:
            from authgate.aws import dynamodb as default_client

            dynamodb = default_client()
        self._db = dynamodb
        self._table = table or get_settings().tables.users

    def create(self, tenant_id: str, username: str, password: str, *, overwrite: bool = False) -> User:
        """Add a user (or replace one when `overwrite`); the password is stored as scrypt only."""
        return self.put_hash(tenant_id, username, hash_password(password), overwrite=overwrite)

    def put_hash(self, tenant_id: str, username: str, password_hash: str, *, overwrite: bool = True) -> User:
        """Add (or replace) a user whose password is already hashed (`hash_password`)."""
        item = {
            "tenant_id": {"S": tenant_id},
            "username": {"S": username},
            "password_hash": {"S": password_hash},
            "failed_logins": {"N": "0"},
            "created_at": {"N": str(clock.seconds())},
        }
        kwargs: dict[str, Any] = {} if overwrite else {"ConditionExpression": "attribute_not_exists(username)"}
        with dynamodb_faults("users.create",
                             refused=lambda: UserExists(f"user {username!r} already exists in tenant {tenant_id!r}")):
            self._db.put_item(TableName=self._table, Item=item, **kwargs)
        return User(tenant_id, username, 0, 0)

    def get(self, tenant_id: str, username: str) -> User | None:
        with dynamodb_faults("users.get"):
            item = self._db.get_item(TableName=self._table, ConsistentRead=True,
                                     Key={"tenant_id": {"S": tenant_id}, "username": {"S": username}}).get("Item")
        if not item:
            return None
        return User(tenant_id, username, int(item.get("failed_logins", {}).get("N", "0")),
                    int(item.get("locked_until", {}).get("N", "0")))

    def verify(self, tenant_id: str, username: str, password: str) -> LoginResult:
        """Check a password under the throttling rules in the module docstring."""
        from botocore.exceptions import ClientError

        now = clock.seconds()
        key = {"tenant_id": {"S": tenant_id}, "username": {"S": username}}
        try:
            with dynamodb_faults("users.reserve"):
                # The reservation: refuse while locked or inside the wait window; otherwise count
                # this attempt as a failure up front and close the window for one second, so
                # parallel attempts cannot all slip through before any failure is recorded.
                reserved = self._db.update_item(
                    TableName=self._table, Key=key,
                    UpdateExpression="SET failed_logins = if_not_exists(failed_logins, :zero) + :one, "
                                     "next_attempt_at = :soon",
                    ConditionExpression="attribute_exists(username) "
                                        "AND (attribute_not_exists(locked_until) OR locked_until <= :now) "
                                        "AND (attribute_not_exists(failed_logins) OR failed_logins < :free "
                                        "OR attribute_not_exists(next_attempt_at) OR next_attempt_at <= :now)",
                    ExpressionAttributeValues={":zero": {"N": "0"}, ":one": {"N": "1"}, ":now": {"N": str(now)},
                                               ":soon": {"N": str(now + 1)}, ":free": {"N": str(FREE_ATTEMPTS)}},
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )["Attributes"]
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            check_password(password, _dummy_hash())
            old = exc.response.get("Item")
            if not old:
                return LoginResult(False, "invalid")
            locked = int(old.get("locked_until", {}).get("N", "0")) > now
            return LoginResult(False, "locked" if locked else "throttled")

        stored = reserved.get("password_hash", {}).get("S", "")
        if check_password(password, stored):
            update, values = "SET failed_logins = :zero", {":zero": {"N": "0"}}
            if needs_rehash(stored):
                # The same write: the password, known good now, at the current cost.
                update, values = update + ", password_hash = :hash", {**values, ":hash": {"S": hash_password(password)}}
            with dynamodb_faults("users.success"):
                self._db.update_item(TableName=self._table, Key=key, UpdateExpression=update + " REMOVE next_attempt_at, "
                                     "locked_until", ExpressionAttributeValues=values)
            return LoginResult(True, "ok", subject=username)

        failures = int(reserved["failed_logins"]["N"])
        with dynamodb_faults("users.failure"):
            if failures >= LOCK_AFTER:
                self._db.update_item(TableName=self._table, Key=key,
                                     UpdateExpression="SET locked_until = :until, failed_logins = :zero "
                                                      "REMOVE next_attempt_at",
                                     ExpressionAttributeValues={":until": {"N": str(now + LOCK_SECONDS)},
                                                                ":zero": {"N": "0"}})
            else:
                # Only ever push the window later: a slow attempt that reserved early must not
                # reopen a window that later reservations closed (that let a parallel guess in).
                try:
                    self._db.update_item(TableName=self._table, Key=key,
                                         UpdateExpression="SET next_attempt_at = :next",
                                         ConditionExpression="attribute_not_exists(next_attempt_at) "
                                                             "OR next_attempt_at < :next",
                                         ExpressionAttributeValues={":next": {"N": str(now + delay_after(failures))}})
                except ClientError as exc:
                    if not condition_failed(exc):
                        raise
        return LoginResult(False, "invalid")


def seed(items: Iterable[Mapping[str, Any]], dynamodb: Any = None) -> int:
    """Load the seed file's "users" section: [{"tenant_id", "username", "password"}]; returns the count.

    A seeded password is hashed once per process (a local stack and the tests reseed often, and
    each hash costs 128 MiB and most of a second); every user still gets its own salt.
    """
    store = UserStore(dynamodb)
    count = 0
    for entry in items:
        tenant, username = str(entry["tenant_id"]), str(entry["username"])
        store.put_hash(tenant, username, _seeded_hash(tenant, username, str(entry["password"])))
        count += 1
    return count


@lru_cache(maxsize=64)
def _seeded_hash(tenant_id: str, username: str, password: str) -> str:
    return hash_password(password)
