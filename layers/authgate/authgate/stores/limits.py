"""LimitsTable: fixed-window counters of the rate limiters (authgate.limits), one item per window.

An item is `limit_key` (which window of which partition), `expires_at` (TTL) and one Number
attribute per counter. The limiters name keys and counters (authgate.limits.counters); this
store owns every DynamoDB call on the table and what its failures mean:

- `count` is the API limiter's single call per request: one UpdateItem that ADDs 1 to each
  counter under the condition that every one is below its quota (atomic per item, so exact
  under any concurrency; a refused request changes nothing);
- `item_keys` / `failures` let the failed-auth guard ride on its caller's BatchGetItem, `read`
  is the same read on its own, `add` counts one failure.

Throttling and unavailability become LimitsUnavailable (the limiters decide whether that fails
open or closed); anything else (a missing table, denied access) propagates as the bug it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from authgate import records
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed, is_unavailable


class LimitReached(Exception):
    """A counter is at its quota: nothing was counted. `counts` are the item's counts then."""

    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__("limit reached")
        self.counts = counts


class LimitsUnavailable(Exception):
    """The table throttled or did not answer; `internal` says how (for logs, never clients)."""

    def __init__(self, internal: str) -> None:
        super().__init__(internal)
        self.internal = internal


def _numbers(item: Mapping[str, Any], attributes: Iterable[str]) -> dict[str, int]:
    return {name: records.number(item, name) for name in attributes}


def _key(key: str) -> dict[str, dict[str, str]]:
    return {"limit_key": s(key)}


def _client_error_code(exc: BaseException) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


class LimitsStore(TableStore):
    table_setting = "limits"

    # -- the API limiter: one conditional UpdateItem per request --------------------------------

    def count(self, key: str, quotas: Mapping[str, int], expires_at: int) -> dict[str, int]:
        """Add 1 to every counter of `quotas` (attribute -> quota) if each is below its quota.

        Returns the new counts (UPDATED_NEW); raises LimitReached with the item's counts
        (ReturnValuesOnConditionCheckFailure=ALL_OLD: no second read) or LimitsUnavailable.
        """
        from botocore.exceptions import BotoCoreError, ClientError

        names = {f"#c{i}": attribute for i, attribute in enumerate(quotas)}
        values: dict[str, Any] = {":one": n(1), ":exp": n(expires_at)}
        conditions = []
        for i, quota in enumerate(quotas.values()):
            values[f":q{i}"] = n(quota)
            # Absent (the window's first request for this counter) or below its quota.
            conditions.append(f"(attribute_not_exists(#c{i}) OR #c{i} < :q{i})")
        try:
            result = self.db.update_item(
                TableName=self.table,
                Key=_key(key),
                UpdateExpression="ADD " + ", ".join(f"{alias} :one" for alias in names) + " SET expires_at = :exp",
                ConditionExpression=" AND ".join(conditions),
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
                ReturnValues="UPDATED_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if condition_failed(exc):
                raise LimitReached(_numbers(exc.response.get("Item") or {}, quotas)) from exc
            if is_unavailable(exc):
                raise LimitsUnavailable(f"{_client_error_code(exc)}: {str(exc)[:200]}") from exc
            raise
        except BotoCoreError as exc:
            if is_unavailable(exc):
                raise LimitsUnavailable(f"{type(exc).__name__}: {str(exc)[:200]}") from exc
            raise
        return _numbers(result.get("Attributes") or {}, quotas)

    # -- the failed-auth guard: read with the caller's BatchGetItem, one ADD per failure -------

    @staticmethod
    def item_keys(keys: Iterable[str]) -> list[dict[str, dict[str, str]]]:
        """DynamoDB keys of `keys`, for a BatchGetItem on this table (RequestItems[store.table])."""
        return [_key(key) for key in keys]

    @staticmethod
    def failures(items: Iterable[Mapping[str, Any]]) -> dict[str, int]:
        """The `failures` count of each fetched item, by key (absent items count zero)."""
        return {records.string(item, "limit_key"): records.number(item, "failures")
                for item in items if "limit_key" in item}

    def read(self, keys: list[str]) -> dict[str, int]:
        """`failures` of these items in one strongly consistent BatchGetItem (503 when unavailable)."""
        with self.faults("read"):
            result = self.db.batch_get_item(RequestItems={
                self.table: {"Keys": self.item_keys(keys), "ConsistentRead": True}})
        return self.failures(result.get("Responses", {}).get(self.table, []))

    def add(self, key: str, attribute: str, expires_at: int) -> None:
        """ADD 1 to one counter (no condition); raises LimitsUnavailable when throttled or down."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.db.update_item(
                TableName=self.table,
                Key=_key(key),
                UpdateExpression="ADD #n :one SET expires_at = :exp",
                ExpressionAttributeNames={"#n": attribute},
                ExpressionAttributeValues={":one": n(1), ":exp": n(expires_at)},
            )
        except (ClientError, BotoCoreError) as exc:
            if is_unavailable(exc):
                raise LimitsUnavailable(type(exc).__name__) from exc
            raise
