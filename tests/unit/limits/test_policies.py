"""limits.policies: quota policies from settings, and how many partitions a tenant quota needs."""

from __future__ import annotations

import pytest

from authgate.limits.policies import (
    ApiPolicies,
    Policy,
    api_policies,
    auth_failure_policies,
    count_for,
    current_api_policies,
)
from authgate.settings import from_env


def test_the_api_policies_share_one_window() -> None:
    settings = from_env({"AUTHGATE_RATE_WINDOW": "30", "AUTHGATE_RATE_TENANT": "900", "AUTHGATE_RATE_CLIENT": "300",
                         "AUTHGATE_RATE_IP": "100"})
    assert api_policies(settings) == ApiPolicies(Policy("tenant", 900, 30), Policy("client", 300, 30),
                                                 Policy("ip", 100, 30), partitions=1)
    assert [p.name for p in api_policies(settings).all()] == ["tenant", "client", "ip"]


@pytest.mark.parametrize(("quota", "window", "partitions"), [
    (3000, 60, 1),      # the default: one item
    (10_000, 60, 1),    # at the per-item quota ceiling
    (10_001, 60, 2),    # by size: 10 000 counted requests per item
    (60_000, 60, 6),    # by size (1 000/s by rate asks only 2)
    (100_000, 10, 20),  # by rate: 10 000/s over 500 writes/s per item
])
def test_a_tenant_quota_is_split_by_size_and_by_write_rate(quota: int, window: int, partitions: int) -> None:
    assert count_for(Policy("tenant", quota, window)) == partitions


def test_failed_auth_policies_name_their_subject() -> None:
    settings = from_env({"AUTHGATE_AUTH_FAILURE_WINDOW": "600", "AUTHGATE_AUTH_FAILURE_CLIENT": "5",
                         "AUTHGATE_AUTH_FAILURE_IP": "50"})
    user = auth_failure_policies("user", settings)
    assert user.all() == (Policy("failed-auth-user", 5, 600), Policy("failed-auth-ip", 50, 600))
    assert auth_failure_policies("client", settings).subject.name == "failed-auth-client"


def test_the_current_policies_follow_the_environment_after_a_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_RATE_TENANT", "1234")
    caches.reset()
    assert current_api_policies().tenant.quota == 1234
    monkeypatch.setenv("AUTHGATE_RATE_TENANT", "4321")
    assert current_api_policies().tenant.quota == 1234  # built once per process
    caches.reset()
    assert current_api_policies().tenant.quota == 4321
