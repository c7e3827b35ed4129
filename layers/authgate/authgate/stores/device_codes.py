"""Device authorizations (RFC 8628 3.2-3.5), kept in CodesTable beside the codes and pushed requests.

The record is authgate.single_use.device_codes: one item `device#<SHA-256 of the user code>`. Every
state change is one conditional UpdateItem, so of concurrent polls, decisions or redemptions one
wins. A poll is stores.polls' one conditional write (authgate.polling's rule), shared with CIBA: this store gives it the
item's key and the owner's condition (this device's code, this client, a public client before
client authentication), and reads "not this device's code" as unknown. TTL deletes late and moto
never: expiry is checked here.
"""

from __future__ import annotations

from typing import Any

from authgate import clock, records
from authgate.polling import APPROVED, DENIED, PENDING, REDEEMED, Outcome
from authgate.records import n, s
from authgate.single_use import authentication as signed_in
from authgate.single_use.authentication import Authentication
from authgate.single_use.device_codes import (
    APPROVAL_FIELDS,
    INTERVAL,
    LIFETIME,
    DeviceAuthorization,
    from_item,
    item_id,
    new_device_code,
    new_user_code,
    to_item,
)
from authgate.stores.faults import condition_failed
from authgate.stores.polls import PolledStore

_TRIES = 3


class UserCodeCollision(Exception):
    """Three fresh user codes in a row were live already: the user code space is crowded."""


def _key(user_code: str) -> dict[str, Any]:
    return {"code_hash": s(item_id(user_code))}


class DeviceCodeStore(PolledStore):
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
             public_only: bool = False) -> tuple[Outcome, DeviceAuthorization | None]:
        """One poll of the token endpoint (RFC 8628 3.4-3.5): what it finds, in one conditional UpdateItem
        (authgate.polling: pending, slow_down, approved, denied, expired, redeemed). A code that is not this device's,
        or this client's, is unknown. `public_only`: a poll before client authentication, which only a public
        client's device code passes."""
        now = clock.seconds()
        old = self.poll_once(item_id(user_code), "device_hash = :hash AND client_id = :client"
                             + (" AND public_client = :true" if public_only else ""),
                             {":hash": s(device_hash), ":client": s(client_id),
                              **({":true": {"BOOL": True}} if public_only else {})}, now)
        if old is None:
            return "pending", None
        record = from_item(old) if old else None
        if record is None or record.device_hash != device_hash or record.client_id != client_id or (
                public_only and not record.public_client):
            return "unknown", None
        return self.refused(record.code_hash, state=record.state, expires_at=record.expires_at,
                            interval=record.interval, now=now), record

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
