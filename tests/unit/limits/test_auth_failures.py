"""Brute-force protection: counters read alongside the client record, refused before the secret."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.failures import api_error
from authgate.limits.auth_failures import AuthFailureGuard
from authgate.limits.policies import AuthFailurePolicies, Policy
from authgate.limits.window import window_at
from authgate.stores.exceptions import StorageUnavailable
from tests.faults.injection import client_error

WINDOW = 300


def guard(db: Any, subject: int = 3, ip: int = 5) -> AuthFailureGuard:
    return AuthFailureGuard("client", db, AuthFailurePolicies(
        Policy("failed-auth-client", subject, WINDOW), Policy("failed-auth-ip", ip, WINDOW)))


def fetch(db: Any, g: AuthFailureGuard, subject: str, ip: str) -> list[dict[str, Any]]:
    """What the token endpoint's BatchGetItem returns for the guard's keys."""
    result = db.batch_get_item(RequestItems={g.table: {"Keys": g.keys(subject, ip)}})
    return result["Responses"][g.table]


def test_keys_join_the_callers_batch_get_and_absent_counters_pass(db: Any, clock: ManualClock) -> None:
    g = guard(db)

    keys = g.keys("demo-service", "198.51.100.7")

    assert len(keys) == 2 and all(set(k) == {"limit_key"} for k in keys)
    assert "demo-service" not in repr(keys) and "198.51.100.7" not in repr(keys)
    g.check(fetch(db, g, "demo-service", "198.51.100.7"), "demo-service", "198.51.100.7")


def test_refused_after_the_client_quota_with_oauth_shape_and_headers(db: Any, clock: ManualClock) -> None:
    subject_window = window_at(clock.value, WINDOW, "client:demo-service")
    clock.value = subject_window.end + 100.5
    g = guard(db, subject=3)
    for _ in range(3):
        g.check(fetch(db, g, "demo-service", "198.51.100.7"), "demo-service", "198.51.100.7")
        g.record_failure("demo-service", "198.51.100.7")

    with pytest.raises(ApiError) as refused:
        g.check(fetch(db, g, "demo-service", "198.51.100.7"), "demo-service", "198.51.100.7")

    error = refused.value
    ip_reset = window_at(clock.value, WINDOW, "ip:198.51.100.7").reset_after(clock.value)
    assert (error.code, error.status, error.oauth_error) == ("rate_limited", 429, "temporarily_unavailable")
    assert error.detail == ("Too many failed authentication attempts for this client or address; "
                            "retry after 200 seconds.")
    assert error.headers == {
        "RateLimit-Policy": '"failed-auth-client";q=3;w=300, "failed-auth-ip";q=5;w=300',
        "RateLimit": f'"failed-auth-client";r=0;t=200, "failed-auth-ip";r=2;t={ip_reset}',
        "Retry-After": "200",
    }

    # Another client from another address is untouched; the same client recovers after Retry-After.
    g.check(fetch(db, g, "demo-reader", "198.51.100.8"), "demo-reader", "198.51.100.8")
    clock.advance(200)
    g.check(fetch(db, g, "demo-service", "198.51.100.9"), "demo-service", "198.51.100.9")


def test_one_address_guessing_many_clients_is_refused_per_ip(db: Any, clock: ManualClock) -> None:
    g = guard(db, subject=100, ip=4)
    for n in range(4):
        g.record_failure(f"client-{n}", "203.0.113.9")

    with pytest.raises(ApiError) as refused:
        g.gate("client-99", "203.0.113.9")

    assert refused.value.internal == "failed-auth limit: failed-auth-ip"
    g.gate("client-99", "203.0.113.10")


def test_each_kind_of_attempt_has_its_own_address_counter(db: Any, clock: ManualClock) -> None:
    """Forgotten-password requests from a NAT's address once refused every sign-in and client from it."""
    def kind(name: str) -> AuthFailureGuard:
        return AuthFailureGuard(name, db, AuthFailurePolicies(
            Policy(f"failed-auth-{name}", 100, WINDOW), Policy("failed-auth-ip", 4, WINDOW)))

    resets = kind("reset")
    for n in range(4):
        resets.record_failure(f"demo/nobody-{n}", "203.0.113.9")

    with pytest.raises(ApiError) as refused:
        resets.gate("demo/nobody-99", "203.0.113.9")
    assert refused.value.internal == "failed-auth limit: failed-auth-ip"
    kind("user").gate("demo/alice", "203.0.113.9")
    g = kind("client")
    g.check(fetch(db, g, "demo-service", "203.0.113.9"), "demo-service", "203.0.113.9")
    assert len({k["limit_key"]["S"] for name in ("reset", "user", "client")
                for k in kind(name).keys("x", "203.0.113.9")}) == 6


@pytest.mark.slow
def test_failure_counts_are_exact_under_32_concurrent_failures(db: Any, clock: ManualClock) -> None:
    g = guard(db, subject=1000, ip=1000)

    with ThreadPoolExecutor(max_workers=32) as pool:
        list(pool.map(lambda _: g.record_failure("demo-service", "198.51.100.7"), range(32)))

    items = fetch(db, g, "demo-service", "198.51.100.7")
    assert sorted(int(i["failures"]["N"]) for i in items) == [32, 32]


def test_an_unavailable_table_on_record_fails_open_and_on_gate_is_a_503(
        db: Any, clock: ManualClock, inject: Any) -> None:
    inject("UpdateItem", client_error("ProvisionedThroughputExceededException"))
    inject("BatchGetItem", client_error("ThrottlingException", "BatchGetItem"))
    g = guard(db)

    g.record_failure("demo-service", "198.51.100.7")  # no exception: the 401 stays honest
    with pytest.raises(StorageUnavailable) as unavailable:
        g.gate("demo-service", "198.51.100.7")

    error = api_error(unavailable.value)
    assert error is not None and (error.code, error.status) == ("service_unavailable", 503)
    assert error.headers == {"Retry-After": "1"}
