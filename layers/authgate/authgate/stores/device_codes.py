"""Device authorizations (RFC 8628 3.2-3.5), kept in CodesTable beside the codes and pushed requests.

The record is authgate.single_use.device_codes: one item `device#<SHA-256 of the user code>`. Every
state change is one conditional UpdateItem, so of concurrent polls, decisions or redemptions one
wins. A poll while the person has not decided is that one write: it passes only when the device
waited its interval, and moves the next allowed poll; when its condition fails the old item
(ReturnValuesOnConditionCheckFailure) says why without a second read (approved, denied, expired,
too early, or not this device's code). TTL deletes late and moto never: expiry is checked here.
"""

from __future__ import annotations

from typing import Any, Literal

from authgate import clock, records
from authgate.records import n, s
from authgate.single_use import authentication as signed_in
from authgate.single_use.authentication import Authentication
from authgate.single_use.device_codes import (
    APPROVAL_FIELDS,
    APPROVED,
    DENIED,
    INTERVAL,
    LIFETIME,
    PENDING,
    REDEEMED,
    SLOW_DOWN,
    DeviceAuthorization,
    from_item,
    item_id,
    new_device_code,
    new_user_code,
    to_item,
)
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed

# What a poll found (RFC 8628 3.5): wait, slow down, redeem, denied, expired, or no such device code.
Poll = Literal["pending", "slow_down", "approved", "denied", "expired", "redeemed", "unknown"]
_TRIES = 3


class UserCodeCollision(Exception):
    """Three fresh user codes in a row were live already: the user code space is crowded."""


def _key(user_code: str) -> dict[str, Any]:
    return {"code_hash": s(item_id(user_code))}


class DeviceCodeStore(TableStore):
    """CodesTable items `device#<hash>` -> a device authorization and its decision."""

    table_setting = "codes"
    name = "device_codes"

    def create(self, *, client_id: str, tenant_id: str, scope: str, resource: str | None,
               public_client: bool = False, lifetime: int = LIFETIME) -> tuple[str, str, DeviceAuthorization]:
        """Store a new device authorization: (device code, normalised user code, record) (RFC 8628 3.2).

        A user code is unique among live ones: the write fails if the code is live (one in 2^34 per
        live code), and another is drawn."""
        from botocore.exceptions import ClientError

        now = clock.seconds()
        for _ in range(_TRIES):
            user_code = new_user_code()
            device_code, device_hash = new_device_code(user_code)
            record = DeviceAuthorization(code_hash=item_id(user_code), device_hash=device_hash, client_id=client_id,
                                         tenant_id=tenant_id, scope=scope, state=PENDING, interval=INTERVAL,
                                         next_poll_at=now, issued_at=now, expires_at=now + lifetime, resource=resource,
                                         public_client=public_client)
            try:
                with self.faults("create"):
                    self.db.put_item(TableName=self.table, Item=to_item(record),
                                     ConditionExpression="attribute_not_exists(code_hash) OR expires_at <= :now",
                                     ExpressionAttributeValues={":now": n(now)})
            except ClientError as exc:
                if condition_failed(exc):
                    continue
                raise
            return device_code, user_code, record
        raise UserCodeCollision()

    def pending(self, user_code: str) -> DeviceAuthorization | None:
        """The authorization of a normalised user code while the person may still decide: pending, unexpired."""
        found = self.find(_key(user_code), "find")
        if found is None:
            return None
        record = from_item(found)
        return record if record.state == PENDING and record.expires_at > clock.seconds() else None

    def decide(self, record: DeviceAuthorization, *, approved: bool, subject: str = "",
               authentication: Authentication | None = None, grant_id: str = "") -> bool:
        """Record the person's decision on a pending authorization (RFC 8628 3.3); False if it is no longer pending."""
        from botocore.exceptions import ClientError

        values: dict[str, Any] = {":pending": s(PENDING), ":now": n(clock.seconds()), ":hash": s(record.device_hash),
                                  ":state": s(APPROVED if approved else DENIED)}
        if approved:
            # The approval's attributes, written through the record's own field table.
            values.update({f":{name}": value for name, value in records.to_item(
                APPROVAL_FIELDS,
                {"subject": subject, "grant_id": grant_id, **signed_in.values(authentication)}).items()})
        sets = ["#state = :state", "decided_at = :now",
                *(f"{name[1:]} = {name}" for name in values if name not in (":pending", ":now", ":hash", ":state"))]
        try:
            with self.faults("decide"):
                self.db.update_item(
                    TableName=self.table, Key={"code_hash": s(record.code_hash)},
                    UpdateExpression="SET " + ", ".join(sets),
                    ConditionExpression="device_hash = :hash AND #state = :pending AND expires_at > :now",
                    ExpressionAttributeNames={"#state": "state"}, ExpressionAttributeValues=values)
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def poll(self, user_code: str, device_hash: str, client_id: str, *,
             public_only: bool = False) -> tuple[Poll, DeviceAuthorization | None]:
        """One poll of the token endpoint (RFC 8628 3.4-3.5): what it finds, in one conditional UpdateItem.

        Passing, the device waited long enough and the person has not decided: the next poll is due one
        interval from now. Otherwise the old item says which answer applies; too early raises the
        interval by 5 seconds for this and every later poll (3.5 slow_down), a second write.
        `public_only`: a poll before client authentication, which only a public client's device code passes."""
        from botocore.exceptions import ClientError

        now = clock.seconds()
        try:
            with self.faults("poll"):
                self.db.update_item(
                    TableName=self.table, Key=_key(user_code),
                    UpdateExpression="SET next_poll_at = #interval + :now",
                    # One second of leeway: a device that waits exactly the interval may arrive a little early.
                    ConditionExpression=("device_hash = :hash AND client_id = :client AND #state = :pending "
                                         "AND expires_at > :now AND next_poll_at <= :due"
                                         + (" AND public_client = :true" if public_only else "")),
                    ExpressionAttributeNames={"#state": "state", "#interval": "interval"},
                    ExpressionAttributeValues={":hash": s(device_hash), ":client": s(client_id),
                                               ":pending": s(PENDING), ":now": n(now), ":due": n(now + 1),
                                               **({":true": {"BOOL": True}} if public_only else {})},
                    ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old = exc.response.get("Item")
            record = from_item(old) if old else None
            if record is None or record.device_hash != device_hash or record.client_id != client_id or (
                    public_only and not record.public_client):
                return "unknown", None
            if record.state == REDEEMED:
                return "redeemed", record
            if record.expires_at <= now:
                return "expired", record
            if record.state in (APPROVED, DENIED):
                return record.state, record  # type: ignore[return-value]  # one of Poll's values
            self._slow_down(record, now)
            return "slow_down", record
        return "pending", None

    def redeem(self, record: DeviceAuthorization) -> bool:
        """Take an approved authorization's tokens, once (a conditional UpdateItem): False if another poll did."""
        from botocore.exceptions import ClientError

        now = clock.seconds()
        try:
            with self.faults("redeem"):
                self.db.update_item(
                    TableName=self.table, Key={"code_hash": s(record.code_hash)},
                    UpdateExpression="SET #state = :redeemed, redeemed_at = :now",
                    ConditionExpression="device_hash = :hash AND #state = :approved AND expires_at > :now",
                    ExpressionAttributeNames={"#state": "state"},
                    ExpressionAttributeValues={":hash": s(record.device_hash), ":approved": s(APPROVED),
                                               ":redeemed": s(REDEEMED), ":now": n(now)})
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def _slow_down(self, record: DeviceAuthorization, now: int) -> None:
        """RFC 8628 3.5: the interval grows by 5 seconds, and the next poll is due one (new) interval from now."""
        interval = record.interval + SLOW_DOWN
        with self.faults("slow_down"):
            self.db.update_item(
                TableName=self.table, Key={"code_hash": s(record.code_hash)},
                UpdateExpression="SET #interval = :interval, next_poll_at = :next",
                ExpressionAttributeNames={"#interval": "interval"},
                ExpressionAttributeValues={":interval": n(interval), ":next": n(now + interval)})
