"""One poll mechanism for the grants a client polls for: the device grant (RFC 8628 3.4-3.5) and CIBA poll mode
(OpenID Connect CIBA Core 1.0 7.3, 11). The rules live here; each store keeps only its key and its record.

A polled record is an item of CodesTable (key `code_hash`) with `state` (pending, then approved or
denied, then redeemed), `expires_at`, `interval` and `next_poll_at`. A poll is ONE conditional
UpdateItem (`poll_once`): while the record is the client's, pending, unexpired and polled no sooner
than `next_poll_at` (less POLL_LEEWAY), it moves `next_poll_at` to one interval from now, and the
answer is authorization_pending. Otherwise the item as it was
(ReturnValuesOnConditionCheckFailure ALL_OLD) says which answer applies, without a second read
(`refused`): redeemed; past its expiry, expired_token whatever happened; approved, or denied
(access_denied), even when polled too fast; and a pending one polled too fast is slow_down: the
interval grows by SLOW_DOWN_STEP seconds for this and every later poll (RFC 8628 3.5, which CIBA 11
follows), a second write; the next poll is then due one grown interval after the refused poll.

One rule for both grants. RFC 8628 3.5 and CIBA Core 11 grow the interval "for this and all
subsequent requests", and a compliant client waits the grown interval from the slow_down answer, so
the wait counts from the refused poll, not from the last one that passed. The leeway spares a client
that times its wait from the request it sent rather than the answer it got.
"""

from __future__ import annotations

from typing import Literal

from authgate.records import Item, n, s
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed

# What a poll found. "unknown" (no such record, or another client's) is each store's own reading.
Outcome = Literal["pending", "slow_down", "approved", "denied", "expired", "redeemed", "unknown"]
# The states of a polled record (single_use.device_codes, approvals.backchannel_request).
PENDING, APPROVED, DENIED, REDEEMED = "pending", "approved", "denied", "redeemed"
# RFC 8628 3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests".
SLOW_DOWN_STEP = 5
# Seconds early a poll may come and still count as having waited its interval (RFC 8628 3.5; CIBA Core 7.3).
POLL_LEEWAY = 1


class PolledStore(TableStore):
    """A store of CodesTable items a client polls (stores.device_codes, stores.backchannel_requests)."""

    def poll_once(self, key: str, owner: str, values: Item, now: int) -> Item | None:
        """The poll's one conditional UpdateItem on item `key` of the owner `owner` says (a condition on `values`):
        None when it passed (authorization_pending), else the item as it was ({} when there was none)."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("poll"):
                self.db.update_item(
                    TableName=self.table, Key={"code_hash": s(key)},
                    UpdateExpression="SET next_poll_at = #interval + :now",
                    ConditionExpression=(f"{owner} AND #state = :pending AND expires_at > :now "
                                         "AND next_poll_at <= :due"),
                    ExpressionAttributeNames={"#state": "state", "#interval": "interval"},
                    ExpressionAttributeValues={**values, ":pending": s(PENDING), ":now": n(now),
                                               ":due": n(now + POLL_LEEWAY)},
                    ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old: Item = exc.response.get("Item") or {}
            return old
        return None

    def refused(self, key: str, *, state: str, expires_at: int, interval: int, now: int) -> Outcome:
        """What a poll that did not pass answers, from the owner's record as it was (RFC 8628 3.5; CIBA 11)."""
        if state == REDEEMED:
            return "redeemed"
        if expires_at <= now:
            return "expired"
        if state == APPROVED:
            return "approved"
        if state == DENIED:
            return "denied"
        self._slow_down(key, interval, now)
        return "slow_down"

    def _slow_down(self, key: str, interval: int, now: int) -> None:
        """RFC 8628 3.5; CIBA Core 11: the interval grows by SLOW_DOWN_STEP for good, and the next poll is due one
        grown interval after this refused one. Only while pending: a decision made meanwhile stands."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("slow_down"):
                self.db.update_item(
                    TableName=self.table, Key={"code_hash": s(key)},
                    UpdateExpression="SET #interval = #interval + :step, next_poll_at = :due",
                    ConditionExpression="#state = :pending",
                    ExpressionAttributeNames={"#state": "state", "#interval": "interval"},
                    ExpressionAttributeValues={":step": n(SLOW_DOWN_STEP), ":pending": s(PENDING),
                                               ":due": n(now + interval + SLOW_DOWN_STEP)})
        except ClientError as exc:
            if not condition_failed(exc):
                raise
