"""The emulator's API Gateway usage plans: per-key token-bucket throttling and a period quota.

Plans come from template.yaml (AWS::ApiGateway::UsagePlan: Throttle.RateLimit/BurstLimit,
Quota.Limit/Period), parameters resolved to their defaults unless overridden; the API key ->
plan mapping comes from the seed file's "api_keys" section. As on API Gateway, a plan only
applies to methods that require an API key. Refusals are the template's gateway responses:
THROTTLED when the key's bucket is empty, QUOTA_EXCEEDED when its quota for the period is
spent (quota periods start at 00:00 UTC: the day, the ISO week, the month).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from authgate import clock
from authgate_cli.local import template

THROTTLED = "THROTTLED"
QUOTA_EXCEEDED = "QUOTA_EXCEEDED"


@dataclass(frozen=True)
class UsagePlan:
    name: str            # the template's logical id, e.g. "StandardUsagePlan"
    rate: float          # steady-state requests per second (tokens added per second)
    burst: int           # bucket capacity
    quota: int | None    # requests per period; None: no quota
    period: str = "DAY"  # DAY | WEEK | MONTH


class UnknownPlan(LookupError):
    pass


def _resolve(value: Any, parameters: Mapping[str, Any]) -> Any:
    """A literal, or {"Ref": Parameter} resolved from overrides, then the parameter's Default."""
    if isinstance(value, dict) and set(value) == {"Ref"}:
        name = value["Ref"]
        if name not in parameters:
            raise UnknownPlan(f"usage plan refers to unknown parameter {name!r}")
        return parameters[name]
    return value


def load_plans(path: Path = template.TEMPLATE_PATH,
               overrides: Mapping[str, Any] | None = None) -> dict[str, UsagePlan]:
    """Every usage plan of the template, by logical id."""
    declared = template.load(path).get("Parameters") or {}
    parameters = {name: p.get("Default") for name, p in declared.items()}
    parameters.update(overrides or {})
    plans = {}
    for name, resource in template.resources("AWS::ApiGateway::UsagePlan", path).items():
        props = resource.get("Properties") or {}
        throttle = props.get("Throttle") or {}
        quota = props.get("Quota") or {}
        limit = _resolve(quota.get("Limit"), parameters)
        plans[name] = UsagePlan(
            name=name,
            # No Throttle on a plan: only the stage and account limits apply (unbounded here).
            rate=float(_resolve(throttle.get("RateLimit", float("inf")), parameters)),
            burst=int(_resolve(throttle.get("BurstLimit", 10**9), parameters)),
            quota=int(limit) if limit is not None else None,
            period=str(_resolve(quota.get("Period", "DAY"), parameters)).upper(),
        )
    return plans


def period_start(now: float, period: str) -> float:
    """Start (epoch seconds, UTC) of the quota period containing `now`."""
    moment = datetime.fromtimestamp(now, tz=UTC)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "WEEK":
        day -= timedelta(days=day.weekday())
    elif period == "MONTH":
        day = day.replace(day=1)
    return day.timestamp()


class UsagePlanEnforcer:
    """Throttle and quota state per API key; thread-safe (the emulator serves in threads)."""

    def __init__(self, plans: Mapping[str, UsagePlan]) -> None:
        self.plans = dict(plans)
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}   # key -> (tokens, last refill)
        self._used: dict[str, tuple[float, int]] = {}        # key -> (period start, count)

    @classmethod
    def from_template(cls, path: Path = template.TEMPLATE_PATH,
                      overrides: Mapping[str, Any] | None = None) -> UsagePlanEnforcer:
        return cls(load_plans(path, overrides))

    def admit(self, api_key: str, plan_name: str) -> str | None:
        """None to let the request through, else the gateway response type that refuses it."""
        plan = self.plans.get(plan_name)
        if plan is None:
            raise UnknownPlan(f"API key is on usage plan {plan_name!r}, which template.yaml does not define")
        now = clock.now()
        with self._lock:
            # A spent quota refuses before the bucket is touched: the request costs nothing.
            used = 0
            if plan.quota is not None:
                start, used = self._used.get(api_key, (0.0, 0))
                if start != period_start(now, plan.period):
                    used = 0
                if used >= plan.quota:
                    return QUOTA_EXCEEDED
            tokens, last = self._buckets.get(api_key, (float(plan.burst), now))
            tokens = min(float(plan.burst), tokens + max(0.0, now - last) * plan.rate)
            # Epoch seconds as floats carry ~1e-7 s of rounding: a whole token is 1 within that.
            if tokens < 1.0 - 1e-6:
                self._buckets[api_key] = (tokens, now)
                return THROTTLED
            self._buckets[api_key] = (tokens - 1.0, now)
            if plan.quota is not None:
                self._used[api_key] = (period_start(now, plan.period), used + 1)
            return None

    def remaining_quota(self, api_key: str, plan_name: str) -> int | None:
        """What is left of the key's quota this period (None: the plan has no quota)."""
        plan = self.plans[plan_name]
        if plan.quota is None:
            return None
        with self._lock:
            start, used = self._used.get(api_key, (0.0, 0))
        return plan.quota - (used if start == period_start(clock.now(), plan.period) else 0)
