"""authgate_cli.local.usage_plans: the emulator's usage-plan throttle (token bucket) and daily quota."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from authgate.clock import ManualClock
from authgate_cli.local.usage_plans import (
    QUOTA_EXCEEDED,
    THROTTLED,
    UnknownPlan,
    UsagePlan,
    UsagePlanEnforcer,
    load_plans,
    period_start,
)

NOON = datetime(2026, 3, 4, 12, 0, tzinfo=UTC).timestamp()


def test_plans_are_read_from_the_template_with_parameter_defaults() -> None:
    plans = load_plans()

    assert plans["StandardUsagePlan"] == UsagePlan("StandardUsagePlan", 10.0, 20, 10000, "DAY")
    assert plans["PremiumUsagePlan"] == UsagePlan("PremiumUsagePlan", 100.0, 200, 1000000, "DAY")
    assert load_plans(overrides={"StandardPlanDailyQuota": 5})["StandardUsagePlan"].quota == 5


def test_a_burst_drains_the_bucket_then_the_rate_refills_it(clock: ManualClock) -> None:
    clock.value = NOON
    plans = UsagePlanEnforcer({"P": UsagePlan("P", rate=2.0, burst=3, quota=None)})

    outcomes = [plans.admit("key-a", "P") for _ in range(5)]
    assert outcomes == [None, None, None, THROTTLED, THROTTLED]

    clock.advance(0.4)  # 0.8 token: still empty
    assert plans.admit("key-a", "P") == THROTTLED
    clock.advance(0.1)  # 1 token
    assert plans.admit("key-a", "P") is None
    assert plans.admit("key-a", "P") == THROTTLED
    clock.advance(60)   # refills only up to the burst
    assert [plans.admit("key-a", "P") for _ in range(4)] == [None, None, None, THROTTLED]


def test_each_key_has_its_own_bucket_and_quota(clock: ManualClock) -> None:
    clock.value = NOON
    plans = UsagePlanEnforcer({"P": UsagePlan("P", rate=1.0, burst=1, quota=1)})

    assert plans.admit("key-a", "P") is None
    assert plans.admit("key-b", "P") is None
    assert plans.admit("key-a", "P") == QUOTA_EXCEEDED


def test_the_daily_quota_refuses_until_midnight_utc_and_refusals_cost_nothing(clock: ManualClock) -> None:
    clock.value = NOON
    plans = UsagePlanEnforcer({"P": UsagePlan("P", rate=1000.0, burst=1000, quota=3)})

    assert [plans.admit("k", "P") for _ in range(5)] == [None, None, None, QUOTA_EXCEEDED, QUOTA_EXCEEDED]
    assert plans.remaining_quota("k", "P") == 0

    clock.value = datetime(2026, 3, 4, 23, 59, 59, tzinfo=UTC).timestamp()
    assert plans.admit("k", "P") == QUOTA_EXCEEDED
    clock.value = datetime(2026, 3, 5, 0, 0, 0, tzinfo=UTC).timestamp()
    assert plans.admit("k", "P") is None
    assert plans.remaining_quota("k", "P") == 2


def test_quota_periods_start_at_utc_midnight_of_day_week_and_month() -> None:
    def utc(*args: int) -> float:
        return datetime(*args, tzinfo=UTC).timestamp()

    assert period_start(NOON, "DAY") == utc(2026, 3, 4)
    assert period_start(NOON, "WEEK") == utc(2026, 3, 2)   # Monday
    assert period_start(NOON, "MONTH") == utc(2026, 3, 1)


def test_a_key_on_a_plan_the_template_lacks_is_a_configuration_error(clock: ManualClock) -> None:
    with pytest.raises(UnknownPlan):
        UsagePlanEnforcer({}).admit("k", "GoldPlan")


def test_a_plan_without_throttle_or_quota_admits_everything(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "template.yaml"
    path.write_text("Resources:\n  Open:\n    Type: AWS::ApiGateway::UsagePlan\n    Properties: {}\n")

    plans = UsagePlanEnforcer.from_template(path)

    assert all(plans.admit("k", "Open") is None for _ in range(1000))
