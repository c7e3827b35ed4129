"""Pushed authorization requests (RFC 9126 2.2, 4), kept in CodesTable beside the codes they lead to.

A pushed request lives as long as a code (60 s at most) and is consumed the same way, so it
shares the codes table rather than adding one: its key is `par#` + SHA-256 of the random part
of the request_uri (a code's key is a bare hex digest, so the two never meet, and presenting a
request_uri as a code finds nothing). Only the hash is stored. The authorization endpoint takes
it with ONE conditional UpdateItem: it must exist, still be unused, belong to the client that
presents it and not be expired (TTL deletes late, moto never); of two concurrent uses one wins.
A failed use by another client leaves the request untouched for its owner.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any, NamedTuple

from authgate import clock
from authgate.stores.base import TableStore
from authgate.stores.exceptions import (
    PushedRequestExpired,
    PushedRequestNotFound,
    PushedRequestOfAnotherClient,
    PushedRequestUsed,
)
from authgate.stores.faults import condition_failed

URN_PREFIX = "urn:ietf:params:oauth:request_uri:"
LIFETIME = 60


class PushedRequest(NamedTuple):
    """The authorization request parameters a client pushed (RFC 9126 2.1), by name."""

    client_id: str
    params: dict[str, list[str]]
    expires_at: int


def _key(request_uri: str) -> dict[str, Any]:
    return {"code_hash": {"S": "par#" + hashlib.sha256(request_uri.encode("utf-8")).hexdigest()}}


class PushedRequestStore(TableStore):
    """CodesTable items `par#<hash>` -> the pushed parameters, single use."""

    table_setting = "codes"
    name = "pushed_requests"

    def create(self, client_id: str, params: dict[str, list[str]], lifetime: int = LIFETIME) -> tuple[str, int]:
        """Store the request; return its request_uri (256 random bits, RFC 9126 2.2) and lifetime."""
        request_uri = URN_PREFIX + secrets.token_urlsafe(32)
        now = clock.seconds()
        with self.faults("create"):
            self.db.put_item(
                TableName=self.table,
                Item={**_key(request_uri), "client_id": {"S": client_id}, "state": {"S": "pushed"},
                      "params": {"S": json.dumps(params, separators=(",", ":"))},
                      "issued_at": {"N": str(now)}, "expires_at": {"N": str(now + lifetime)}},
                ConditionExpression="attribute_not_exists(code_hash)")
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
                    ExpressionAttributeValues={":used": {"S": "used"}, ":pushed": {"S": "pushed"},
                                               ":client": {"S": client_id}, ":now": {"N": str(now)}},
                    ReturnValues="ALL_NEW", ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old = exc.response.get("Item")
            if not old or "params" not in old:
                raise PushedRequestNotFound() from exc
            if old["client_id"]["S"] != client_id:
                raise PushedRequestOfAnotherClient() from exc
            if old.get("state", {}).get("S") != "pushed":
                raise PushedRequestUsed() from exc
            raise PushedRequestExpired() from exc
        item = result["Attributes"]
        params = json.loads(item["params"]["S"])
        return PushedRequest(item["client_id"]["S"], params, int(item["expires_at"]["N"]))
