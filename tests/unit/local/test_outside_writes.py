"""authgate_cli.local.outside_writes and the emulator: a write from outside the functions drops their warm caches
before the next request, once; a read does not, and an emulator that watches nothing (a stage's way) never does."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.caches import BoundedCache
from authgate_cli.local.events import HttpRequest
from authgate_cli.local.outside_writes import OutsideWrites, is_write, watching
from authgate_cli.local.routing import Router
from authgate_cli.local.server import Emulator
from authgate_cli.local.template import api_routes


@pytest.mark.parametrize(("target", "write"), [
    ("DynamoDB_20120810.PutItem", True), ("DynamoDB_20120810.UpdateItem", True),
    ("DynamoDB_20120810.TransactWriteItems", True), ("secretsmanager.PutSecretValue", True),
    ("TrentService.ScheduleKeyDeletion", True),
    ("DynamoDB_20120810.GetItem", False), ("DynamoDB_20120810.Query", False), ("DynamoDB_20120810.Scan", False),
    ("DynamoDB_20120810.BatchGetItem", False), ("DynamoDB_20120810.DescribeTable", False),
    ("secretsmanager.ListSecrets", False), ("", False),
])
def test_an_operation_not_named_as_a_read_is_a_write(target: str, write: bool) -> None:
    assert is_write(target) is write


def test_a_write_is_noted_once_moto_has_applied_it() -> None:
    writes, order = OutsideWrites(), []

    def moto(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        order.append(("applied", writes.take()))
        return [b"{}"]

    app = watching(moto, writes)
    assert app({"HTTP_X_AMZ_TARGET": "DynamoDB_20120810.GetItem"}, None) == [b"{}"]
    assert app({"HTTP_X_AMZ_TARGET": "DynamoDB_20120810.PutItem"}, None) == [b"{}"]
    assert order == [("applied", False), ("applied", False)]  # nothing noted before it was applied
    assert (writes.take(), writes.take()) == (True, False)  # noted once, taken once


def ok(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {"statusCode": 200, "headers": {}, "body": ""}


@pytest.mark.parametrize("watched", [True, False])
def test_the_emulator_drops_the_warm_caches_before_the_request_after_a_write(watched: bool) -> None:
    writes = OutsideWrites()
    emulator = Emulator(Router(api_routes()), issuer="http://127.0.0.1:3000", load=lambda _function: ok,
                        outside_writes=writes if watched else None)
    warm: BoundedCache[str, str] = BoundedCache(4)
    request = HttpRequest("GET", "/.well-known/jwks.json", "", [("Host", "127.0.0.1:3000")])
    warm.put("tenant", "cached")
    emulator.handle(request)
    assert warm.get("tenant") == "cached"  # no write: still warm
    writes.note()
    assert emulator.handle(request).status == 200
    assert warm.get("tenant") == (None if watched else "cached")
    warm.put("tenant", "cached again")
    emulator.handle(request)
    assert warm.get("tenant") == "cached again"  # one write, one drop
