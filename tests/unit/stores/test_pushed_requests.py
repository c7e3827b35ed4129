"""stores.pushed_requests (RFC 9126 2.2, 4): hashed, single use, only by the client that pushed, until it expires."""

from __future__ import annotations

import threading

import boto3
import pytest

from authgate.clock import ManualClock
from authgate.single_use.errors import (
    PushedRequestError,
    PushedRequestExpired,
    PushedRequestNotFound,
    PushedRequestOfAnotherClient,
    PushedRequestUsed,
)
from authgate.single_use.pushed_requests import URN_PREFIX
from authgate.stores.pushed_requests import PushedRequestStore

PARAMS = {"response_type": ["code"], "scope": ["charges:read"]}


def test_a_pushed_request_is_taken_once_by_its_client(aws: None, clock: ManualClock) -> None:
    store = PushedRequestStore()
    uri, lifetime = store.create("web", PARAMS)
    assert uri.startswith(URN_PREFIX) and len(uri) == len(URN_PREFIX) + 43 and lifetime == 60
    items = boto3.client("dynamodb").scan(TableName="CodesTable")["Items"]
    assert uri not in str(items) and items[0]["code_hash"]["S"].startswith("par#")
    taken = store.consume(uri, "web")
    assert (taken.client_id, taken.params, taken.expires_at) == ("web", PARAMS, int(clock()) + 60)
    with pytest.raises(PushedRequestUsed):
        store.consume(uri, "web")


def test_another_client_cannot_take_it_and_leaves_it_for_its_owner(aws: None) -> None:
    store = PushedRequestStore()
    uri, _ = store.create("web", PARAMS)
    with pytest.raises(PushedRequestOfAnotherClient):
        store.consume(uri, "mallory")
    assert store.consume(uri, "web").params == PARAMS


def test_an_unknown_or_expired_request_uri(aws: None, clock: ManualClock) -> None:
    store = PushedRequestStore()
    with pytest.raises(PushedRequestNotFound):
        store.consume(URN_PREFIX + "never-pushed", "web")
    uri, _ = store.create("web", PARAMS, lifetime=30)
    clock.advance(30)
    with pytest.raises(PushedRequestExpired):
        store.consume(uri, "web")


def test_of_concurrent_uses_one_wins(aws: None) -> None:
    store = PushedRequestStore()
    uri, _ = store.create("web", PARAMS)
    outcomes: list[str] = []

    def use() -> None:
        try:
            store.consume(uri, "web")
            outcomes.append("taken")
        except PushedRequestError as exc:
            outcomes.append(exc.reason)

    threads = [threading.Thread(target=use) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["already_used"] * 5 + ["taken"]
