"""DynamoDB calls per successful token request, counted with botocore event hooks (warm function).

Budget: client_credentials <= 2, authorization_code <= 3, refresh_token <= 3. The client record
and the failed-authentication counters come in one BatchGetItem; secrets are a single SHA-256.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tests.demo import SECRETS
from tests.functional.token_support import TokenClient, basic, body_of, grant, new_code


@pytest.fixture
def calls(tokens: TokenClient) -> Iterator[Counter[str]]:
    from authgate.aws import dynamodb

    tokens.client_credentials()  # warm: signing key cached as in a warm Lambda
    seen: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        seen[model.name] += 1

    client = dynamodb()
    client.meta.events.register("before-call.dynamodb", count)
    yield seen
    client.meta.events.unregister("before-call.dynamodb", count)


def test_client_credentials_costs_one_call_when_warm(tokens: TokenClient, calls: Counter[str]) -> None:
    assert tokens.client_credentials()["statusCode"] == 200
    # The tenant is warm-cached (authgate.stores.tenant_cache), so a warm request makes one call.
    assert calls == Counter({"BatchGetItem": 1})


def test_code_exchange_costs_three_calls(tokens: TokenClient, calls: Counter[str]) -> None:
    code = new_code()
    calls.clear()
    assert tokens.exchange(code)["statusCode"] == 200
    assert calls == Counter({"BatchGetItem": 1, "UpdateItem": 1, "TransactWriteItems": 1})


def test_refresh_costs_four_calls(tokens: TokenClient, calls: Counter[str]) -> None:
    """The token's GetItem, then its user's (deleted, disabled or sessions ended: docs/users.md)."""
    first = body_of(tokens.exchange(new_code()))
    calls.clear()
    assert tokens.refresh(first["refresh_token"])["statusCode"] == 200
    assert calls == Counter({"BatchGetItem": 1, "GetItem": 2, "TransactWriteItems": 1})


def test_a_registered_resource_costs_one_get_per_cache_miss(tokens: TokenClient, calls: Counter[str]) -> None:
    """The resource's record comes from a 60 s warm cache (authgate.stores.resource_cache)."""
    from authgate.resources.model import Resource
    from authgate.stores.resources import ResourceStore

    ResourceStore().create(Resource("https://mcp.example.com/mcp", ("mcp:read",)))
    grant("demo-service", "https://mcp.example.com/mcp", ("mcp:read",))
    calls.clear()
    for expected in (Counter({"BatchGetItem": 1, "GetItem": 1}), Counter({"BatchGetItem": 1})):
        result = tokens.post([("grant_type", "client_credentials"), ("resource", "https://mcp.example.com/mcp")],
                             auth=basic("demo-service", SECRETS["demo-service"]))
        assert (result["statusCode"], calls) == (200, expected)
        calls.clear()
