"""The API limiter against moto's DynamoDB (atomic): exact counts, headers, recovery, isolation."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.limits.limiter import ApiLimiter
from authgate.limits.policies import ApiPolicies, Policy
from authgate.limits.window import window_at
from tests.faults.injection import client_error

WINDOW = 60


def policies(tenant: int = 100, client: int = 3, ip: int = 50) -> ApiPolicies:
    return ApiPolicies(Policy("tenant", tenant, WINDOW), Policy("client", client, WINDOW),
                       Policy("ip", ip, WINDOW))


def at_window_start(clock: ManualClock, tenant: str = "demo", into: float = 0.25) -> int:
    """Move the clock to `into` seconds after the start of the next window of `tenant`."""
    window = window_at(clock.value, WINDOW, tenant)
    clock.value = window.end + into
    return window.end


def test_admitted_requests_advertise_remaining_quota_per_policy(db: Any, clock: ManualClock, calls: list[str]) -> None:
    at_window_start(clock, into=18.5)
    limiter = ApiLimiter(db, policies())

    first = limiter.hit("demo", "demo-service", "198.51.100.7")
    second = limiter.hit("demo", "demo-service", "198.51.100.7")

    assert first.headers() == {
        "RateLimit-Policy": '"tenant";q=100;w=60, "client";q=3;w=60, "ip";q=50;w=60',
        "RateLimit": '"tenant";r=99;t=42, "client";r=2;t=42, "ip";r=49;t=42',
    }
    assert second.headers()["RateLimit"] == '"tenant";r=98;t=42, "client";r=1;t=42, "ip";r=48;t=42'
    assert calls == ["UpdateItem", "UpdateItem"]  # exactly one DynamoDB call per request


def test_a_burst_past_the_client_quota_is_refused_then_recovers_after_retry_after(db: Any, clock: ManualClock) -> None:
    at_window_start(clock, into=10)
    limiter = ApiLimiter(db, policies(client=3))
    for _ in range(3):
        limiter.hit("demo", "demo-service", "198.51.100.7")

    refusals = []
    for _ in range(5):
        with pytest.raises(ApiError) as refused:
            limiter.hit("demo", "demo-service", "198.51.100.7")
        refusals.append(refused.value)

    error = refusals[0]
    assert (error.code, error.status, error.oauth_error) == ("rate_limited", 429, "temporarily_unavailable")
    assert error.detail == "Too many requests for this client; retry after 50 seconds."
    assert error.headers == {
        "RateLimit-Policy": '"tenant";q=100;w=60, "client";q=3;w=60, "ip";q=50;w=60',
        "RateLimit": '"tenant";r=97;t=50, "client";r=0;t=50, "ip";r=47;t=50',
        "Retry-After": "50",
    }
    # Refused requests are not counted: hammering does not push the reset further out.
    assert {e.headers["RateLimit"] for e in refusals} == {error.headers["RateLimit"]}

    clock.advance(int(error.headers["Retry-After"]))
    state = limiter.hit("demo", "demo-service", "198.51.100.7")
    assert state.headers()["RateLimit"] == '"tenant";r=99;t=60, "client";r=2;t=60, "ip";r=49;t=60'


def test_retry_after_is_never_earlier_than_the_reset(db: Any, clock: ManualClock) -> None:
    end = at_window_start(clock, into=59.2)
    limiter = ApiLimiter(db, policies(client=1))
    limiter.hit("demo", "c", "198.51.100.7")

    with pytest.raises(ApiError) as refused:
        limiter.hit("demo", "c", "198.51.100.7")

    retry_after = int(refused.value.headers["Retry-After"])
    assert clock.value + retry_after >= end + WINDOW
    assert retry_after == 1


def test_one_client_or_ip_being_limited_does_not_limit_another(db: Any, clock: ManualClock) -> None:
    at_window_start(clock)
    limiter = ApiLimiter(db, policies(client=2, ip=2))
    for _ in range(2):
        limiter.hit("demo", "demo-service", "198.51.100.7")
    with pytest.raises(ApiError):
        limiter.hit("demo", "demo-service", "198.51.100.7")

    other_client = limiter.hit("demo", "demo-reader", "198.51.100.8")
    with pytest.raises(ApiError) as same_ip:
        limiter.hit("demo", "demo-reader", "198.51.100.7")

    assert other_client.headers()["RateLimit"].startswith('"tenant";r=97;')
    assert same_ip.value.detail.startswith("Too many requests for this ip;")


def test_one_tenant_being_limited_does_not_limit_another(db: Any, clock: ManualClock) -> None:
    at_window_start(clock, "demo")
    limiter = ApiLimiter(db, policies(tenant=2, client=10, ip=10))
    limiter.hit("demo", "a", "198.51.100.1")
    limiter.hit("demo", "b", "198.51.100.2")
    with pytest.raises(ApiError) as refused:
        limiter.hit("demo", "c", "198.51.100.3")

    acme = limiter.hit("acme", "acme-service", "198.51.100.1")

    assert refused.value.detail.startswith("Too many requests for this tenant;")
    assert acme.headers()["RateLimit"].startswith('"tenant";r=1;')


@pytest.mark.slow
def test_counts_are_exact_under_32_concurrent_requests(db: Any, clock: ManualClock) -> None:
    at_window_start(clock)
    limiter = ApiLimiter(db, policies(tenant=1000, client=20, ip=1000))

    def one(n: int) -> str:
        try:
            limiter.hit("demo", "demo-service", f"198.51.100.{n}")
        except ApiError as error:
            return error.code
        return "ok"

    with ThreadPoolExecutor(max_workers=32) as pool:
        outcomes = list(pool.map(one, range(32)))

    assert outcomes.count("ok") == 20
    assert outcomes.count("rate_limited") == 12
    state = limiter.hit("demo", "demo-reader", "198.51.100.200")
    assert state.headers()["RateLimit"].startswith('"tenant";r=979;')  # 20 admitted + this one


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ThrottlingException",
                                  "RequestLimitExceeded", "InternalServerError"])
def test_an_unavailable_limits_table_fails_open_with_a_log_line_and_metric(
        db: Any, clock: ManualClock, inject: Any, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.log_hygiene import LogCapture

    inject("UpdateItem", client_error(code))

    with LogCapture() as capture:
        state = ApiLimiter(db, policies()).hit("demo", "demo-service", "198.51.100.7")

    assert state.degraded is True
    assert state.headers() == {"RateLimit-Policy": '"tenant";q=100;w=60, "client";q=3;w=60, "ip";q=50;w=60'}
    assert [json.loads(line)["message"] for line in capture.lines] == [
        "rate limiter unavailable; request admitted (fail open)"]
    assert '"limiter":"api"' in capsys.readouterr().out  # the EMF metric line


def test_a_read_timeout_fails_open_too(db: Any, clock: ManualClock, inject: Any) -> None:
    from botocore.exceptions import ReadTimeoutError

    inject("UpdateItem", ReadTimeoutError(endpoint_url="http://dynamodb"))

    assert ApiLimiter(db, policies()).hit("demo", "c", "198.51.100.7").degraded is True


def test_a_misconfigured_table_is_not_silently_ignored(db: Any, clock: ManualClock, inject: Any) -> None:
    from botocore.exceptions import ClientError

    inject("UpdateItem", client_error("ResourceNotFoundException"))

    with pytest.raises(ClientError):
        ApiLimiter(db, policies()).hit("demo", "c", "198.51.100.7")


def test_counter_names_hold_no_raw_client_id_or_address(db: Any, clock: ManualClock) -> None:
    at_window_start(clock)
    ApiLimiter(db, policies()).hit("demo", "demo-service", "198.51.100.7")

    item = db.scan(TableName="LimitsTable")["Items"][0]
    text = repr(item)
    assert "demo-service" not in text and "198.51.100.7" not in text
    assert sorted(k[:2] for k in item) == ["c_", "ex", "i_", "li", "to"]


# ------------------------------------------------------------------ a tenant split into partitions


def partitioned(tenant: int = 10, partitions: int = 4, client: int = 100, ip: int = 100) -> ApiPolicies:
    return ApiPolicies(Policy("tenant", tenant, WINDOW), Policy("client", client, WINDOW),
                       Policy("ip", ip, WINDOW), partitions=partitions)


def clients_in(partition: int, count: int, partitions: int = 4) -> list[str]:
    from authgate.limits.partitions import partition_of

    found = [f"client-{n}" for n in range(10_000) if partition_of(f"client-{n}", partitions).index == partition]
    return found[:count]


def test_a_partitioned_tenant_advertises_its_share_and_partition_key(db: Any, clock: ManualClock,
                                                                      calls: list[str]) -> None:
    at_window_start(clock, "big", into=18.5)
    client = clients_in(2, 1)[0]

    state = ApiLimiter(db, partitioned()).hit("big", client, "198.51.100.7")

    pk = "Mi80"  # base64 of "2/4": partition 2 of 4
    assert state.headers() == {
        "RateLimit-Policy": f'"tenant";q=2;w=60;pk=:{pk}:, "client";q=100;w=60, "ip";q=100;w=60;pk=:{pk}:',
        "RateLimit": f'"tenant";r=1;t=42;pk=:{pk}:, "client";r=99;t=42, "ip";r=99;t=42;pk=:{pk}:',
    }
    assert calls == ["UpdateItem"]  # still one DynamoDB call per request
    keys = [item["limit_key"]["S"] for item in db.scan(TableName="LimitsTable")["Items"]]
    assert len(keys) == 1 and keys[0].endswith("#p2of4")


@pytest.mark.slow
def test_each_partition_admits_exactly_its_share_under_concurrency(db: Any, clock: ManualClock) -> None:
    at_window_start(clock)
    limiter = ApiLimiter(db, partitioned(tenant=10, partitions=4))  # shares 3, 3, 2, 2
    crowd = clients_in(0, 32)

    def one(client: str) -> str:
        try:
            limiter.hit("big", client, "198.51.100.7")
        except ApiError as error:
            return error.detail.split(";")[0]
        return "ok"

    with ThreadPoolExecutor(max_workers=32) as pool:
        outcomes = list(pool.map(one, crowd))

    assert outcomes.count("ok") == 3
    assert set(outcomes) - {"ok"} == {"Too many requests for this tenant"}


def test_the_tenant_is_never_admitted_past_its_quota_across_partitions(db: Any, clock: ManualClock,
                                                                       calls: list[str]) -> None:
    at_window_start(clock)
    limiter = ApiLimiter(db, partitioned(tenant=10, partitions=4))
    crowd = [c for p in range(4) for c in clients_in(p, 8)]  # more than every share

    def one(client: str) -> bool:
        try:
            limiter.hit("big", client, f"198.51.100.{len(client)}")
        except ApiError:
            return False
        return True

    with ThreadPoolExecutor(max_workers=32) as pool:
        admitted = sum(pool.map(one, crowd))

    assert admitted == 10  # every share filled, not one request more
    assert calls == ["UpdateItem"] * len(crowd)
    items = db.scan(TableName="LimitsTable", ConsistentRead=True)["Items"]
    totals = sorted((item["limit_key"]["S"].rsplit("#", 1)[1], int(item["total"]["N"])) for item in items)
    assert totals == [("p0of4", 3), ("p1of4", 3), ("p2of4", 2), ("p3of4", 2)]


def test_a_client_faster_than_one_item_takes_is_refused_at_start_up() -> None:
    from authgate.settings import SettingsError, from_env

    with pytest.raises(SettingsError, match="AUTHGATE_RATE_CLIENT must be at most 500 per second"):
        from_env({"AUTHGATE_RATE_WINDOW": "1", "AUTHGATE_RATE_CLIENT": "1200"})
