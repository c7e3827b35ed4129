"""The API limiter: per-tenant, per-client and per-source-IP quotas in ONE DynamoDB call.

Algorithm: fixed window. One LimitsTable item per (tenant, window) holds the tenant total and
one counter per client and per source IP seen in that window. A single UpdateItem ADDs 1 to
the three counters under a condition that all three are below their quotas, so:

- the decision and the count are one atomic write (exact under any concurrency; a refused
  request is not counted, so hammering while limited does not extend the wait);
- UPDATED_NEW returns the three new counts (the remaining quota for RateLimit);
- ReturnValuesOnConditionCheckFailure=ALL_OLD returns the counts that tripped the limit,
  without a second read;
- the window is part of the key, so an expired window's item is never read again (moto and
  DynamoDB's TTL both delete late; correctness never waits for TTL).

A sliding window or GCRA needs the previous state to compute the next one (a read, or several
items), which does not fit the one-call budget of a limited request. The fixed window's known
weakness, up to twice the quota across a window boundary, is bounded by the gateway's
token-bucket throttling in front of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from authgate.errors import ApiError
from authgate.limits import clock, counters, degraded
from authgate.limits.fields import ServiceLimit, header_fields, policy_field
from authgate.limits.policies import ApiPolicies, Policy, api_policies
from authgate.limits.window import Window, window_at
from authgate.settings import get_settings
from authgate.stores.faults import is_unavailable

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response
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

    def apply(self, response: Response) -> Response:
        for name, value in self.headers().items():
            response.set_header(name, value)
        return response


class ApiLimiter:
    """Counts one request against its tenant's, client's and source IP's quotas."""

    def __init__(self, dynamodb: Any = None, policies: ApiPolicies | None = None) -> None:
        if dynamodb is None:
            from authgate.aws import dynamodb as default_client

            dynamodb = default_client()
        self._db = dynamodb
        self._table = get_settings().tables.limits
        self.policies = policies or api_policies()

    def hit(self, tenant: str, client_id: str, source_ip: str) -> RateLimitState:
        """Admit and count the request, or raise ApiError("rate_limited") with Retry-After."""
        from botocore.exceptions import BotoCoreError, ClientError

        now = clock.now()
        window = window_at(now, self.policies.tenant.window, tenant)
        names = {"#t": counters.TENANT_COUNTER, "#c": counters.client_counter(client_id),
                 "#i": counters.ip_counter(source_ip)}
        p = self.policies
        try:
            result = self._db.update_item(
                TableName=self._table,
                Key={"limit_key": {"S": f"api#{tenant}#{window.start}"}},
                UpdateExpression="ADD #t :one, #c :one, #i :one SET expires_at = :exp",
                # Each counter is absent (first request of the window) or below its quota.
                ConditionExpression=("(attribute_not_exists(#t) OR #t < :tq) AND "
                                     "(attribute_not_exists(#c) OR #c < :cq) AND "
                                     "(attribute_not_exists(#i) OR #i < :iq)"),
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={
                    ":one": {"N": "1"}, ":exp": {"N": str(window.end + _TTL_GRACE)},
                    ":tq": {"N": str(p.tenant.quota)}, ":cq": {"N": str(p.client.quota)},
                    ":iq": {"N": str(p.ip.quota)},
                },
                ReturnValues="UPDATED_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise self._refused(exc.response.get("Item") or {}, names, window, now) from exc
            if is_unavailable(exc):
                return self._fail_open(exc)
            raise
        except BotoCoreError as exc:
            if is_unavailable(exc):
                return self._fail_open(exc)
            raise
        counts = _counts(result.get("Attributes") or {}, names)
        return RateLimitState(self._service_limits(counts, window, now), p.all())

    def _service_limits(self, counts: dict[str, int], window: Window, now: float) -> tuple[ServiceLimit, ...]:
        reset = window.reset_after(now)
        p = self.policies
        return (ServiceLimit(p.tenant, p.tenant.quota - counts["#t"], reset),
                ServiceLimit(p.client, p.client.quota - counts["#c"], reset),
                ServiceLimit(p.ip, p.ip.quota - counts["#i"], reset))

    def _refused(self, item: dict[str, Any], names: dict[str, str], window: Window, now: float) -> ApiError:
        counts = _counts(item, names)
        limits = self._service_limits(counts, window, now)
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

    def _fail_open(self, exc: BaseException) -> RateLimitState:
        degraded.record("api", type(exc).__name__ + ": " + str(exc)[:200])
        return RateLimitState((), self.policies.all(), degraded=True)


def _counts(item: dict[str, Any], names: dict[str, str]) -> dict[str, int]:
    return {alias: int((item.get(attr) or {}).get("N", "0")) for alias, attr in names.items()}


def enforce(request: Request, principal: Principal, *, dynamodb: Any = None) -> RateLimitState:
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


def _remember(request: Request, key: str, headers: dict[str, str]) -> None:
    request.context.response_headers.update(headers)
