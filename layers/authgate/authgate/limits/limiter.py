"""The API limiter: per-tenant, per-client and per-source-IP fixed-window quotas in one conditional UpdateItem.

The algorithm and why it is a fixed window: docs/limits.md ("How the in-Lambda limiter works").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from authgate import clock
from authgate.errors import ApiError
from authgate.limits import counters, degraded
from authgate.limits.fields import ServiceLimit, header_fields, policy_field
from authgate.limits.partitions import partition_of
from authgate.limits.policies import ApiPolicies, Policy, current_api_policies
from authgate.limits.window import Window, window_at
from authgate.stores.limits import LimitReached, LimitsStore, LimitsUnavailable

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView
    from authgate.tokens.principal import Principal

# Where the App (http/app.py) finds headers to add to whatever response the request gets.
RESPONSE_HEADERS = "response_headers"
# Items outlive their window a little so an operator can still read the last window's counts.
_TTL_GRACE = 3600


@dataclass(frozen=True)
class RateLimitState:
    """The outcome of an admitted request: what to advertise in the RateLimit fields."""

    limits: tuple[ServiceLimit, ...]
    policies: tuple[Policy, ...] = ()
    # True when the limiter's table was unavailable and the request was admitted unchecked.
    degraded: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    def headers(self) -> dict[str, str]:
        """RateLimit-Policy and RateLimit (only the policy when the counts are unknown)."""
        if self.limits:
            return header_fields(self.limits)
        return {"RateLimit-Policy": policy_field(self.policies)} if self.policies else {}


class ApiLimiter:
    """Counts one request against its tenant's, client's and source IP's quotas."""

    def __init__(self, dynamodb: Any = None, policies: ApiPolicies | None = None,
                 store: LimitsStore | None = None) -> None:
        self._store = store or LimitsStore(dynamodb)
        self.policies = policies or current_api_policies()

    def hit(self, tenant: str, client_id: str, source_ip: str) -> RateLimitState:
        """Admit and count the request, or raise ApiError("rate_limited") with Retry-After."""
        now = clock.now()
        p = self.policies
        window = window_at(now, p.tenant.window, tenant)
        partition = partition_of(client_id, p.partitions)
        # The policies as this request sees them: the tenant's share of its partition, and the
        # IP counted within it (both carry the partition key when there are several).
        policies = (partition.tenant_policy(p.tenant), p.client, partition.scoped(p.ip))
        names = (counters.TENANT_COUNTER, counters.client_counter(client_id), counters.ip_counter(source_ip))
        quotas = {name: policy.quota for name, policy in zip(names, policies, strict=True)}
        try:
            counts = self._store.count(counters.api_key(tenant, window, partition), quotas,
                                       window.end + _TTL_GRACE)
        except LimitReached as refused:
            raise self._refused(refused.counts, names, policies, window, now) from refused
        except LimitsUnavailable as exc:
            return self._fail_open(exc.internal, policies)
        return RateLimitState(_service_limits(counts, names, policies, window, now), policies)

    def _refused(self, counts: dict[str, int], names: tuple[str, ...], policies: tuple[Policy, ...],
                 window: Window, now: float) -> ApiError:
        limits = _service_limits(counts, names, policies, window, now)
        tripped = [s.policy.name for s in limits if s.remaining <= 0]
        reset = window.reset_after(now)
        headers = header_fields(limits)
        # Retry-After is the end of the window: never earlier than the effective window (draft 6).
        headers["Retry-After"] = str(reset)
        return ApiError(
            "rate_limited",
            f"Too many requests for this {' and '.join(tripped) or 'tenant'}; retry after {reset} seconds.",
            internal=f"limits tripped: {', '.join(tripped)}",
            headers=headers,
            oauth_error="temporarily_unavailable",
        )

    def _fail_open(self, internal: str, policies: tuple[Policy, ...]) -> RateLimitState:
        degraded.record("api", internal)
        return RateLimitState((), policies, degraded=True)


def _service_limits(counts: dict[str, int], names: tuple[str, ...], policies: tuple[Policy, ...],
                    window: Window, now: float) -> tuple[ServiceLimit, ...]:
    reset = window.reset_after(now)
    return tuple(ServiceLimit(policy, policy.quota - counts.get(name, 0), reset)
                 for name, policy in zip(names, policies, strict=True))


def enforce(request: RequestView, principal: Principal, *, dynamodb: Any = None) -> RateLimitState:
    """Count an authenticated API request (RateLimit fields ride on every response it gets).

    Raises ApiError("rate_limited") (429, Retry-After, RateLimit fields) when a quota is spent.
    """
    state_key = RESPONSE_HEADERS
    try:
        state = ApiLimiter(dynamodb).hit(principal.tenant, principal.client_id, request.source_ip)
    except ApiError as error:
        _remember(request, state_key, {k: v for k, v in error.headers.items() if k != "Retry-After"})
        raise
    _remember(request, state_key, state.headers())
    return state


def _remember(request: RequestView, key: str, headers: dict[str, str]) -> None:
    request.context.response_headers.update(headers)
