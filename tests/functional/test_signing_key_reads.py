"""How each function reads the signing keys: the published keys' one item, never a Scan (stores.signing_keys).

A cold token request reads the current key with the client's tenant in one BatchGetItem, so it
costs three AWS calls where it cost four (one a Scan of KeysTable); the JWKS is one GetItem. A
table written before the published keys' item existed is still read, by a Scan, until the next
rotation writes the item.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from authgate.clock import ManualClock
from tests.bearer_requests import event
from tests.demo import Demo
from tests.functional.token_support import TokenClient, body_of, headers_of


class Container:
    """The functions' process: `fresh()` makes it cold (no settings, clients, signer or cached tenant);
    `calls` counts every AWS call (DynamoDB, Secrets Manager) since."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self._clients: list[Any] = []

    def _count(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1

    def fresh(self) -> None:
        from authgate import aws, caches

        self.stop()
        caches.reset()
        self.calls.clear()
        self._clients = [aws.dynamodb(), aws.secretsmanager()]
        for client in self._clients:
            client.meta.events.register("before-call", self._count)

    def stop(self) -> None:
        for client in self._clients:
            client.meta.events.unregister("before-call", self._count)


@pytest.fixture
def cold(demo: Demo) -> Iterator[Container]:
    container = Container()
    container.fresh()
    yield container
    container.stop()


def assert_issued(result: dict[str, Any]) -> None:
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    body = body_of(result)
    assert (result["statusCode"], headers, set(body), body["token_type"], body["scope"]) == (
        200, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"},
        {"access_token", "token_type", "expires_in", "scope"}, "Bearer", "charges:read charges:write")


def published_kids() -> list[str]:
    from authgate.stores.signing_keys import PUBLISHED

    items = boto3.client("dynamodb").scan(TableName="KeysTable", ConsistentRead=True)["Items"]
    states = {i["kid"]["S"]: i["state"]["S"] for i in items if i.get("state", {}).get("S") in PUBLISHED}
    return sorted(states, key=lambda kid: PUBLISHED.index(states[kid]))


def jwks_kids(result: dict[str, Any]) -> list[str]:
    assert result["statusCode"] == 200
    return [key["kid"] for key in json.loads(result["body"])["keys"]]


def seen(result: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    """What a client sees (status, headers, body), but the request id every response has its own of."""
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    return result["statusCode"], headers, body_of(result)


def forget_the_published_keys_item() -> None:
    """The table as a deployment wrote it before this version: the keys' own items only."""
    from authgate.stores.signing_keys import RING_KID

    boto3.client("dynamodb").delete_item(TableName="KeysTable", Key={"kid": {"S": RING_KID}})


def test_a_cold_token_request_makes_three_aws_calls_and_no_scan(tokens: TokenClient, cold: Container) -> None:
    assert_issued(tokens.client_credentials())
    # The client and its failure counters; the published keys with the client's tenant; the private key.
    assert cold.calls == Counter({"BatchGetItem": 2, "GetSecretValue": 1})
    cold.calls.clear()
    assert_issued(tokens.client_credentials())
    assert cold.calls == Counter({"BatchGetItem": 1})  # warm: signer and tenant cached


def test_the_jwks_is_one_get_item(demo: Demo, invoke: Any, cold: Container) -> None:
    assert jwks_kids(invoke("jwks", event("GET", "/.well-known/jwks.json"))) == published_kids()
    assert cold.calls == Counter({"GetItem": 1})


def test_a_table_without_the_published_keys_item_is_read_by_scan_until_a_rotation_writes_it(
        tokens: TokenClient, demo: Demo, invoke: Any, cold: Container, clock: ManualClock) -> None:
    kids = published_kids()
    jwks = seen(invoke("jwks", event("GET", "/.well-known/jwks.json")))
    charges = seen(invoke("charges", demo.event("GET", "/charges")))
    assert [key["kid"] for key in jwks[2]["keys"]] == kids and charges[0] == 200
    forget_the_published_keys_item()
    cold.fresh()
    assert seen(invoke("jwks", event("GET", "/.well-known/jwks.json"))) == jwks
    assert_issued(tokens.client_credentials())
    # The same answer, one request further into the rate limit's window.
    one_less = re.sub(r"r=(\d+)", lambda m: f"r={int(m[1]) - 1}", charges[1]["RateLimit"])
    assert seen(invoke("charges", demo.event("GET", "/charges"))) == (
        charges[0], {**charges[1], "RateLimit": one_less}, charges[2])
    assert cold.calls["Scan"] == 3  # once per reader: the JWKS, the signer, the bearer guard's keys
    report = invoke("rotate_keys", {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}})
    assert (report["promoted"], report["created"], report["retired"]) == (None, [], [])  # nothing moved...
    cold.fresh()
    assert jwks_kids(invoke("jwks", event("GET", "/.well-known/jwks.json"))) == kids
    assert cold.calls == Counter({"GetItem": 1})  # ...but the item is written, and read again
