"""Pushed authorization requests (RFC 9126 2.2, 4), kept in CodesTable beside the codes they lead to.

The record and its failures are authgate.single_use.pushed_requests. A pushed request lives as
long as a code (60 s at most) and is consumed the same way, so it shares the codes table rather
than adding one: its key is `par#` + SHA-256 of the random part of the request_uri (a code's key
is a bare hex digest, so the two never meet, and presenting a request_uri as a code finds
nothing). Only the hash is stored. The authorization endpoint takes it with ONE conditional
UpdateItem: it must exist, still be unused, belong to the client that presents it and not be
expired (TTL deletes late, moto never); of two concurrent uses one wins. A failed use by another
client leaves the request untouched for its owner.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from authgate import clock, records
from authgate.records import n, s
from authgate.single_use.pushed_requests import FIELDS, LIFETIME, URN_PREFIX, PushedRequest, refusal
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed


def _item_id(request_uri: str) -> str:
    return "par#" + hashlib.sha256(request_uri.encode("utf-8")).hexdigest()


def _key(request_uri: str) -> dict[str, Any]:
    return {"code_hash": s(_item_id(request_uri))}


class PushedRequestStore(TableStore):
    """CodesTable items `par#<hash>` -> the pushed parameters, single use."""

    table_setting = "codes"
    name = "pushed_requests"

    def create(self, client_id: str, params: dict[str, list[str]], lifetime: int = LIFETIME) -> tuple[str, int]:
        """Store the request; return its request_uri (256 random bits, RFC 9126 2.2) and lifetime."""
        request_uri = URN_PREFIX + secrets.token_urlsafe(32)
        now = clock.seconds()
        item = records.to_item(FIELDS, {"code_hash": _item_id(request_uri), "client_id": client_id,
                                        "state": "pushed", "params": params, "issued_at": now,
                                        "expires_at": now + lifetime})
        self.upsert(item, "create", condition="attribute_not_exists(code_hash)")
        return request_uri, lifetime

    def consume(self, request_uri: str, client_id: str) -> PushedRequest:
        """Take the pushed request for `client_id`, once (RFC 9126 4); PushedRequestError otherwise."""
        from botocore.exceptions import ClientError

        now = clock.seconds()
        try:
            with self.faults("consume"):
                result = self.db.update_item(
                    TableName=self.table, Key=_key(request_uri),
                    UpdateExpression="SET #state = :used, used_at = :now",
                    ConditionExpression=("attribute_exists(code_hash) AND #state = :pushed AND client_id = :client "
                                         "AND expires_at > :now"),
                    ExpressionAttributeNames={"#state": "state"},
                    ExpressionAttributeValues={":used": s("used"), ":pushed": s("pushed"), ":client": s(client_id),
                                               ":now": n(now)},
                    ReturnValues="ALL_NEW", ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old = exc.response.get("Item")
            raise refusal(records.from_item(FIELDS, old) if old else None, client_id) from exc
        stored = records.from_item(FIELDS, result["Attributes"])
        return PushedRequest(stored["client_id"], stored["params"], stored["expires_at"])
