"""The local DynamoDB is atomic for single-use writes, as real DynamoDB is.

32 threads race one conditional update ("consume" an item that is not yet used) for 200
rounds; in every round exactly one wins and 31 get ConditionalCheckFailedException. This runs
both through the embedded moto server over HTTP (what `authgate serve` uses) and through
in-process mock_aws (what the tests and `authgate invoke` use).

Without authgate_cli.local.atomic.make_dynamodb_atomic(), moto's backend is not thread-safe:
measured on this machine, about 1% of rounds had 2-4 winners. That is too rare to assert
deterministically, so the unpatched case is documented here rather than tested.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

THREADS = 32
ROUNDS = 200
TABLE = "AtomicityProbe"


def make_client(endpoint: str | None) -> Any:
    return boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint,
                        aws_access_key_id="testing", aws_secret_access_key="testing",
                        config=Config(max_pool_connections=THREADS, retries={"max_attempts": 0}))


def race(client_for: Callable[[], Any]) -> list[int]:
    """Winners per round."""
    setup = client_for()
    setup.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    clients = [client_for() for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)

    def consume(client: Any, key: str) -> bool:
        barrier.wait()  # line every thread up so the updates really overlap
        try:
            client.update_item(
                TableName=TABLE, Key={"pk": {"S": key}},
                UpdateExpression="SET used = :true",
                # The single-use rule: only an item that exists and is not yet used can be consumed.
                ConditionExpression="attribute_exists(pk) AND used = :false",
                ExpressionAttributeValues={":true": {"BOOL": True}, ":false": {"BOOL": False}})
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    winners = []
    with ThreadPoolExecutor(THREADS) as pool:
        for round_no in range(ROUNDS):
            key = f"code-{round_no}"
            setup.put_item(TableName=TABLE, Item={"pk": {"S": key}, "used": {"BOOL": False}})
            results = list(pool.map(consume, clients, [key] * THREADS))
            winners.append(sum(results))
    return winners


@pytest.fixture
def embedded_endpoint() -> Iterator[str]:
    from authgate_cli.local import embedded

    server = embedded.start()
    try:
        yield server.endpoint
    finally:
        server.stop()


@pytest.mark.slow
def test_embedded_server_over_http_has_exactly_one_winner_per_round(embedded_endpoint: str) -> None:
    winners = race(lambda: make_client(embedded_endpoint))
    assert winners == [1] * ROUNDS


@pytest.mark.slow
def test_in_process_mock_has_exactly_one_winner_per_round() -> None:
    from moto import mock_aws

    from authgate_cli.local.atomic import make_dynamodb_atomic

    make_dynamodb_atomic()
    with mock_aws():
        winners = race(lambda: make_client(None))
    assert winners == [1] * ROUNDS
