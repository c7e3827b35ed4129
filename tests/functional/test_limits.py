"""Issue 7 through the real handlers: 429s with RateLimit fields, recovery, isolation, exact
counts under concurrency, brute-force protection, injected DynamoDB faults, usage plans.

Nothing of ours is mocked: the limiter's clock is moved through its own API, faults are raised
by botocore event hooks on the shared DynamoDB client.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from authgate.clock import ManualClock, using
from tests.demo import Demo, body, headers
from tests.faults.injection import client_error
from tests.functional.authorize_support import (
    Browser,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.token_support import TokenClient, basic

Invoke = Callable[[str, dict[str, Any]], dict[str, Any]]
POLICY = '"tenant";q=100;w=60, "client";q=3;w=60, "ip";q=50;w=60'


@pytest.fixture
def clock() -> Iterator[ManualClock]:
    manual = ManualClock()
    with using(manual):
        yield manual


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch, aws: None) -> None:
    from authgate import caches

    for name, value in {"AUTHGATE_RATE_WINDOW": "60", "AUTHGATE_RATE_TENANT": "100",
                        "AUTHGATE_RATE_CLIENT": "3", "AUTHGATE_RATE_IP": "50",
                        "AUTHGATE_AUTH_FAILURE_WINDOW": "300", "AUTHGATE_AUTH_FAILURE_CLIENT": "3",
                        "AUTHGATE_AUTH_FAILURE_IP": "6"}.items():
        monkeypatch.setenv(name, value)
    caches.reset()


@pytest.fixture
def demo(small_limits: None, clock: ManualClock) -> Iterator[Demo]:
    from authgate.tokens.rotation import ensure_keys
    from authgate_cli.local.seed import load_seed

    load_seed()
    ensure_keys()
    yield Demo()


@pytest.fixture
def db(demo: Demo) -> Any:
    from authgate.aws import dynamodb

    return dynamodb()


@pytest.fixture
def fault(db: Any) -> Iterator[Callable[..., None]]:
    """fault("Query", exc, table=None): that operation (on that table) raises exc from now on."""
    hooks: list[tuple[str, Callable[..., Any]]] = []

    def add(operation: str, exc: BaseException, table: str | None = None) -> None:
        def hook(params: dict[str, Any], **_: Any) -> None:
            tables = {params.get("TableName")} | set(params.get("RequestItems") or {})
            if table is None or table in tables:
                raise exc

        event = f"before-parameter-build.dynamodb.{operation}"
        db.meta.events.register(event, hook)
        hooks.append((event, hook))

    yield add
    for event, hook in hooks:
        db.meta.events.unregister(event, hook)


def at_window_start(clock: ManualClock, tenant: str = "demo", into: float = 0.5) -> None:
    from authgate.limits.window import window_at

    clock.value = window_at(clock.value, 60, tenant).end + into


# ------------------------------------------------------------------------------ API routes


def test_a_burst_past_the_client_quota_gets_problem_429s_then_recovers(
        demo: Demo, invoke: Invoke, clock: ManualClock) -> None:
    at_window_start(clock, into=20.5)
    ok = [invoke("charges", demo.event("GET")) for _ in range(3)]
    assert [r["statusCode"] for r in ok] == [200, 200, 200]
    assert headers(ok[0])["ratelimit-policy"] == POLICY
    assert headers(ok[2])["ratelimit"] == '"tenant";r=97;t=40, "client";r=0;t=40, "ip";r=47;t=40'

    refused = invoke("charges", demo.event("GET"))

    h = headers(refused)
    assert refused["statusCode"] == 429
    assert h["content-type"] == "application/problem+json"
    assert (h["ratelimit-policy"], h["ratelimit"], h["retry-after"]) == (
        POLICY, '"tenant";r=97;t=40, "client";r=0;t=40, "ip";r=47;t=40', "40")
    problem = body(refused)
    assert problem == {
        "type": "http://127.0.0.1:3000/problems/rate_limited", "title": "Too many requests",
        "status": 429, "detail": "Too many requests for this client; retry after 40 seconds.",
        "instance": "/charges", "code": "rate_limited", "traceId": h["x-request-id"],
        **{k: v for k, v in problem.items() if k not in {"type", "title", "status", "detail", "instance",
                                                         "code", "traceId"}},
    }

    clock.advance(int(h["retry-after"]))
    again = invoke("charges", demo.event("GET"))
    assert again["statusCode"] == 200
    assert headers(again)["ratelimit"] == '"tenant";r=99;t=60, "client";r=2;t=60, "ip";r=49;t=60'


def test_the_429_body_follows_the_negotiated_and_legacy_shapes(demo: Demo, invoke: Invoke, clock: ManualClock) -> None:
    at_window_start(clock)
    for client in ("demo-service", "demo-legacy-a", "demo-legacy-b"):
        for _ in range(3):
            invoke("charges", demo.event("GET", client=client))

    jsonapi = invoke("charges", demo.event("GET", headers={"Accept": "application/vnd.api+json"}))
    legacy_a = invoke("charges", demo.event("GET", client="demo-legacy-a"))
    legacy_b = invoke("charges", demo.event("GET", client="demo-legacy-b"))

    for result in (jsonapi, legacy_a, legacy_b):
        assert result["statusCode"] == 429
        assert int(headers(result)["retry-after"]) >= 59
        assert '"client";r=0;' in headers(result)["ratelimit"]
    assert headers(jsonapi)["content-type"] == "application/vnd.api+json"
    assert body(jsonapi)["errors"][0]["status"] == "429"
    assert body(jsonapi)["errors"][0]["code"] == "rate_limited"
    assert body(legacy_a)["status"] == 429 and body(legacy_a)["code"] == "rate_limited"
    assert body(legacy_b)["success"] is False


def test_one_tenant_being_limited_does_not_limit_another(demo: Demo, invoke: Invoke, clock: ManualClock) -> None:
    at_window_start(clock)
    for _ in range(4):
        invoke("charges", demo.event("GET"))
    assert invoke("charges", demo.event("GET"))["statusCode"] == 429

    assert invoke("charges", demo.event("GET", client="acme-service"))["statusCode"] == 200
    assert invoke("charges", demo.event("GET", client="demo-reader", scope="charges:read"))["statusCode"] == 200


@pytest.mark.slow
def test_limiter_counts_are_exact_under_32_concurrent_requests(
        demo: Demo, invoke: Invoke, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_RATE_CLIENT", "20")
    caches.reset()
    at_window_start(clock)
    events = [demo.event("GET") for _ in range(32)]

    with ThreadPoolExecutor(max_workers=32) as pool:
        statuses = list(pool.map(lambda e: invoke("charges", e)["statusCode"], events))

    assert sorted(statuses) == [200] * 20 + [429] * 12


def test_a_limited_get_spends_exactly_one_dynamodb_call_on_limiting(
        demo: Demo, invoke: Invoke, db: Any, clock: ManualClock) -> None:
    at_window_start(clock)
    assert invoke("charges", demo.event("GET", client="demo-reader", scope="charges:read"))["statusCode"] == 200
    event = demo.event("GET")  # warm: keys and token cached, as on a warm Lambda
    calls: list[tuple[str, str]] = []

    def count(params: dict[str, Any], model: Any, **_: Any) -> None:
        tables = [params.get("TableName")] if "TableName" in params else list(params.get("RequestItems") or {})
        calls.extend((model.name, t) for t in tables)

    db.meta.events.register("before-parameter-build.dynamodb", count)
    try:
        assert invoke("charges", event)["statusCode"] == 200
    finally:
        db.meta.events.unregister("before-parameter-build.dynamodb", count)

    assert [c for c in calls if c[1] == "LimitsTable"] == [("UpdateItem", "LimitsTable")]


def test_a_ten_thousand_per_second_tenant_is_counted_in_partitions_through_the_handler(
        demo: Demo, invoke: Invoke, db: Any, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """TenantRateLimit=600000 per 60 s: 60 items of 10 000 each; each response names its share."""
    import base64

    from authgate import caches
    from authgate.limits.partitions import partition_of

    monkeypatch.setenv("AUTHGATE_RATE_TENANT", "600000")
    caches.reset()
    at_window_start(clock, into=20.5)

    first = invoke("charges", demo.event("GET"))
    second = invoke("charges", demo.event("GET", client="demo-reader", scope="charges:read"))

    keys = {}
    for client, result in (("demo-service", first), ("demo-reader", second)):
        partition = partition_of(client, 60)
        pk = base64.b64encode(f"{partition.index}/60".encode()).decode()
        share = partition.share(600_000)
        assert result["statusCode"] == 200
        assert headers(result)["ratelimit-policy"] == (
            f'"tenant";q={share};w=60;pk=:{pk}:, "client";q=3;w=60, "ip";q=50;w=60;pk=:{pk}:')
        assert headers(result)["ratelimit"] == (
            f'"tenant";r={share - 1};t=40;pk=:{pk}:, "client";r=2;t=40, "ip";r=49;t=40;pk=:{pk}:')
        keys[client] = f"#p{partition.index}of60"
    items = db.scan(TableName="LimitsTable", ConsistentRead=True)["Items"]
    assert sorted(i["limit_key"]["S"][-len(keys[c]):] for c in keys for i in items
                  if i["limit_key"]["S"].endswith(keys[c])) == sorted(keys.values())


# ------------------------------------------------------------------------------ token endpoint


def test_failed_client_authentication_is_refused_with_an_oauth_429_before_the_secret(
        demo: Demo, invoke: Invoke, clock: ManualClock) -> None:
    tokens = TokenClient(invoke)
    form = [("grant_type", "client_credentials")]
    wrong = [tokens.post(form, auth=basic("demo-service", "guess"), source_ip="198.51.100.7") for _ in range(3)]
    assert [r["statusCode"] for r in wrong] == [401, 401, 401]

    # Even the right secret is not looked at now.
    refused = tokens.post(form, auth=basic("demo-service", "demo-service-secret"), source_ip="198.51.100.7")

    h = {k.lower(): v[-1] for k, v in refused["multiValueHeaders"].items()}
    assert refused["statusCode"] == 429
    assert json.loads(refused["body"])["error"] == "temporarily_unavailable"
    assert h["content-type"] == "application/json" and h["cache-control"] == "no-store"
    assert h["ratelimit-policy"] == '"failed-auth-client";q=3;w=300, "failed-auth-ip";q=6;w=300'
    assert h["ratelimit"].startswith('"failed-auth-client";r=0;')
    retry_after = int(h["retry-after"])
    assert retry_after >= int(h["ratelimit"].split(";t=")[1].split(",")[0])

    # Another client is not affected; the same client recovers after Retry-After.
    assert tokens.client_credentials("demo-reader", source_ip="198.51.100.8")["statusCode"] == 200
    clock.advance(retry_after)
    assert tokens.client_credentials("demo-service", source_ip="198.51.100.9")["statusCode"] == 200


def test_one_address_guessing_many_clients_is_refused(demo: Demo, invoke: Invoke, clock: ManualClock) -> None:
    tokens = TokenClient(invoke)
    for n in range(6):
        tokens.post([("grant_type", "client_credentials")], auth=basic(f"guess-{n}", "x"), source_ip="203.0.113.5")

    refused = tokens.client_credentials("demo-service", source_ip="203.0.113.5")
    elsewhere = tokens.client_credentials("demo-service", source_ip="203.0.113.6")

    assert refused["statusCode"] == 429
    assert elsewhere["statusCode"] == 200


@pytest.mark.slow
def test_forgotten_password_requests_spend_neither_sign_ins_nor_client_secrets(
        demo: Demo, invoke: Invoke, clock: ManualClock, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Requests for accounts that do not exist once counted on the address's one failure counter: six of them
    (the quota here; 30 by default) from a NAT's address refused alice's right password and demo-service's secret."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_OUTBOX", str(tmp_path / "outbox.jsonl"))
    caches.reset()
    browser = Browser(invoke)
    for n in range(6):
        form = browser.get_raw("tenant=demo", path="/oauth/forgot-password")
        asked = browser.post([*page_of(form).hidden().items(), ("username", f"nobody-{n}")],
                             path="/oauth/forgot-password")
        assert asked["statusCode"] == 200
    form = browser.get_raw("tenant=demo", path="/oauth/forgot-password")
    refused = browser.post([*page_of(form).hidden().items(), ("username", "nobody-7")], path="/oauth/forgot-password")
    assert refused["statusCode"] == 429  # the reset requests' own address counter is spent

    signed_in = browser.submit(page_of(browser.get(web_params())))
    issued = TokenClient(invoke).client_credentials("demo-service")

    assert signed_in["statusCode"] == 303 and redirect_of(signed_in).one("code")
    assert issued["statusCode"] == 200 and json.loads(issued["body"])["token_type"] == "Bearer"


# ------------------------------------------------------------------------------ authorize endpoint


@pytest.mark.slow
def test_failed_logins_past_the_quota_redirect_with_temporarily_unavailable(
        demo: Demo, invoke: Invoke, clock: ManualClock) -> None:
    browser = Browser(invoke)
    page = page_of(browser.get(web_params()))
    for _ in range(3):
        assert browser.submit(page, password="wrong")["statusCode"] == 200  # the form again

    result = browser.submit(page)  # the right password is not checked any more

    redirect = redirect_of(result)
    assert result["statusCode"] == 303
    assert redirect.one("error") == "temporarily_unavailable"


# ------------------------------------------------------------------------------ injected faults


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ThrottlingException",
                                  "RequestLimitExceeded"])
def test_throttled_storage_is_a_503_problem_with_retry_after_on_api_routes(
        demo: Demo, invoke: Invoke, fault: Callable[..., None], code: str) -> None:
    event = demo.event("GET")
    fault("Query", client_error(code, "Query"))
    fault("BatchGetItem", client_error(code, "BatchGetItem"))

    result = invoke("charges", event)

    assert result["statusCode"] == 503
    assert headers(result)["content-type"] == "application/problem+json"
    assert int(headers(result)["retry-after"]) >= 1
    assert body(result)["code"] == "service_unavailable"


def test_a_read_timeout_is_a_503_on_api_routes(demo: Demo, invoke: Invoke, fault: Callable[..., None]) -> None:
    from botocore.exceptions import ReadTimeoutError

    event = demo.event("GET")
    fault("Query", ReadTimeoutError(endpoint_url="https://dynamodb"))
    fault("BatchGetItem", ReadTimeoutError(endpoint_url="https://dynamodb"))

    result = invoke("charges", event)

    assert (result["statusCode"], body(result)["code"]) == (503, "service_unavailable")
    assert int(headers(result)["retry-after"]) >= 1


def test_an_unavailable_limits_table_fails_open_on_api_routes(
        demo: Demo, invoke: Invoke, fault: Callable[..., None]) -> None:
    event = demo.event("GET")
    fault("UpdateItem", client_error("ThrottlingException", "UpdateItem"), table="LimitsTable")

    result = invoke("charges", event)

    assert result["statusCode"] == 200
    assert headers(result)["ratelimit-policy"] == POLICY
    assert "ratelimit" not in headers(result)


def test_throttled_storage_is_an_oauth_503_on_the_token_endpoint(
        demo: Demo, invoke: Invoke, fault: Callable[..., None]) -> None:
    fault("BatchGetItem", client_error("ProvisionedThroughputExceededException", "BatchGetItem"))

    result = TokenClient(invoke).client_credentials()

    h = {k.lower(): v[-1] for k, v in result["multiValueHeaders"].items()}
    assert result["statusCode"] == 503
    assert json.loads(result["body"])["error"] == "temporarily_unavailable"
    assert int(h["retry-after"]) >= 1 and h["cache-control"] == "no-store"


def test_throttled_storage_redirects_with_temporarily_unavailable_on_the_authorize_endpoint(
        demo: Demo, invoke: Invoke, fault: Callable[..., None]) -> None:
    browser = Browser(invoke)
    page = page_of(browser.get(web_params()))
    fault("GetItem", client_error("ThrottlingException", "GetItem"), table="UsersTable")
    fault("BatchGetItem", client_error("ThrottlingException", "BatchGetItem"), table="LimitsTable")

    result = browser.submit(page)

    assert result["statusCode"] == 303
    assert redirect_of(result).one("error") == "temporarily_unavailable"


def test_a_counted_request_that_fails_later_still_carries_the_ratelimit_fields(
        demo: Demo, invoke: Invoke, clock: ManualClock) -> None:
    at_window_start(clock, into=30.5)

    result = invoke("charges", demo.event("GET", "/charges/ch_does_not_exist"))

    assert result["statusCode"] == 404
    assert headers(result)["ratelimit-policy"] == POLICY
    assert headers(result)["ratelimit"] == '"tenant";r=99;t=30, "client";r=2;t=30, "ip";r=49;t=30'


# ------------------------------------------------------------------------------ usage plans (emulator)


def _emulator(**kwargs: Any) -> Any:
    from authgate_cli.local.routing import Router
    from authgate_cli.local.server import Emulator
    from authgate_cli.local.template import api_routes

    return Emulator(Router(api_routes()), issuer="http://127.0.0.1:3000",
                    api_keys={"demo-api-key": "StandardUsagePlan"}, **kwargs)


def _get(emulator: Any, path: str = "/charges", key: str | None = "demo-api-key") -> tuple[int, dict[str, str], Any]:
    from authgate_cli.local.events import HttpRequest

    reply = emulator.handle(HttpRequest("GET", path, "", [("x-api-key", key)] if key else []))
    return reply.status, {k.lower(): v for k, v in reply.headers}, json.loads(reply.body or b"null")


def test_the_emulator_throttles_an_api_key_past_its_plans_burst(demo: Demo, clock: ManualClock) -> None:
    emulator = _emulator()

    statuses = [_get(emulator)[0] for _ in range(20)]  # standard plan: burst 20, 10 per second
    status, hdrs, problem = _get(emulator)

    assert statuses == [401] * 20  # admitted by the plan; the function wants a bearer token
    assert status == 429
    assert hdrs["content-type"] == "application/problem+json" and hdrs["retry-after"] == "1"
    assert (problem["status"], problem["code"]) == (429, "rate_limited")
    clock.advance(0.1)  # one token back
    assert _get(emulator)[0] == 401
    assert _get(emulator)[0] == 429
    # Routes that need no API key are outside every usage plan.
    assert _get(emulator, "/.well-known/jwks.json")[0] == 200


def test_the_emulator_enforces_the_plans_daily_quota(demo: Demo, clock: ManualClock) -> None:
    from authgate_cli.local.usage_plans import UsagePlanEnforcer

    emulator = _emulator(usage_plans=UsagePlanEnforcer.from_template(overrides={"StandardPlanDailyQuota": 2}))

    first, second = _get(emulator)[0], _get(emulator)[0]
    status, hdrs, problem = _get(emulator)

    assert (first, second, status) == (401, 401, 429)
    # A daily quota resets at 00:00 UTC: a day is the only bound the gateway can promise.
    assert hdrs["retry-after"] == "86400"
    assert (problem["status"], problem["code"]) == (429, "quota_exceeded")
    assert problem["detail"] == "The daily usage-plan quota of this API key is used up; it resets at 00:00 UTC."
    assert _get(emulator, key=None)[0] == 403  # no key at all: INVALID_API_KEY, not a quota
