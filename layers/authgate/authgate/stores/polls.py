"""The one poll of the grants a client polls for (the device grant, CIBA poll mode) as DynamoDB writes.

The rules are authgate.polling's; here they are conditional writes on CodesTable items (key
`code_hash`, with `state`, `expires_at`, `interval` and `next_poll_at`). A poll is ONE conditional
UpdateItem (`poll_once`) that moves `next_poll_at` to one interval from now while the poll passes;
otherwise the item as it was (ReturnValuesOnConditionCheckFailure ALL_OLD) says which answer applies,
without a second read (`refused`), and a slow_down is a second write that grows the interval.
"""

from __future__ import annotations

from authgate import polling
from authgate.polling import PENDING, SLOW_DOWN_STEP, Outcome
from authgate.records import Item, n, s
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed


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
                                               ":due": n(polling.due_by(now))},
                    ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old: Item = exc.response.get("Item") or {}
            return old
        return None

    def refused(self, key: str, *, state: str, expires_at: int, interval: int, now: int) -> Outcome:
        """What a poll that did not pass answers (polling.refusal); a slow_down grows the record's interval."""
        outcome = polling.refusal(state, expires_at, now)
        if outcome == "slow_down":
            self._slow_down(key, interval, now)
        return outcome

    def _slow_down(self, key: str, interval: int, now: int) -> None:
        """The interval grows by SLOW_DOWN_STEP for good and the next poll is due at polling.slowed_due. Only while
        pending: a decision made meanwhile stands."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("slow_down"):
                self.db.update_item(
                    TableName=self.table, Key={"code_hash": s(key)},
                    UpdateExpression="SET #interval = #interval + :step, next_poll_at = :due",
                    ConditionExpression="#state = :pending",
                    ExpressionAttributeNames={"#state": "state", "#interval": "interval"},
                    ExpressionAttributeValues={":step": n(SLOW_DOWN_STEP), ":pending": s(PENDING),
                                               ":due": n(polling.slowed_due(interval, now))})
        except ClientError as exc:
            if not condition_failed(exc):
                raise
