"""Brute-force protection (RFC 6749 2.3.1, 10.10): failed authentications per credential subject and per source IP.

Each kind of attempt ("client" secrets, "user" passwords, "reset" requests, ...) counts against its own
subject and its own address counter: one party spending one kind's quota from an address shared by
many (a NAT) does not lock the others out of another kind.

Read in the client's BatchGetItem, judged before the secret is compared (fail closed), written
only on failure (fail open, logged): docs/limits.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from authgate import clock
from authgate.errors import ApiError
from authgate.limits import degraded
from authgate.limits.counters import failure_key
from authgate.limits.fields import ServiceLimit, header_fields
from authgate.limits.policies import AuthFailurePolicies, Policy, current_auth_failure_policies
from authgate.limits.window import Window, window_at
from authgate.stores.limits import LimitsStore, LimitsUnavailable

_TTL_GRACE = 3600


class _Counter(NamedTuple):
    policy: Policy
    key: str
    window: Window


class AuthFailureGuard:
    """Failure counters of one kind of credential ("client" at /oauth/token, "user" at login)."""

    def __init__(self, kind: str = "client", dynamodb: Any = None,
                 policies: AuthFailurePolicies | None = None, store: LimitsStore | None = None) -> None:
        self.kind = kind
        self._store = store or LimitsStore(dynamodb)
        self.table = self._store.table
        self.policies = policies or current_auth_failure_policies(kind)

    # -- read side: fetched with the caller's own BatchGetItem --------------------------------

    def keys(self, subject: str, source_ip: str) -> list[dict[str, dict[str, str]]]:
        """LimitsTable keys to add to the caller's BatchGetItem (RequestItems[guard.table])."""
        return self._store.item_keys(c.key for c in self._counters(subject, source_ip, clock.now()))

    def check(self, items: Iterable[dict[str, Any]], subject: str, source_ip: str) -> None:
        """Refuse (429 rate_limited, Retry-After) when either counter has reached its quota.

        `items` are the LimitsTable items the BatchGetItem returned (absent counters are zero).
        """
        self._judge(self._store.failures(items), subject, source_ip)

    def gate(self, subject: str, source_ip: str) -> None:
        """`check()` with its own BatchGetItem, for callers with nothing to fetch alongside."""
        counters = self._counters(subject, source_ip, clock.now())
        self._judge(self._store.read([c.key for c in counters]), subject, source_ip)

    # -- write side: one atomic ADD per counter, only after a failed attempt -------------------

    def record_failure(self, subject: str, source_ip: str) -> None:
        """Count one failed attempt against the subject and the source IP (fails open)."""
        for counter in self._counters(subject, source_ip, clock.now()):
            try:
                self._store.add(counter.key, "failures", counter.window.end + _TTL_GRACE)
            except LimitsUnavailable as exc:
                degraded.record(f"auth-failures-{self.kind}", exc.internal)
                return

    def forgive(self, subject: str) -> None:
        """Forget the subject's failures of the current window (an operator's `authgate users unlock`)."""
        counter = self._counters(subject, "", clock.now())[0]
        self._store.destroy(self._store.item_keys([counter.key])[0], "forgive")

    # -- internals ------------------------------------------------------------------------------

    def _judge(self, failures: dict[str, int], subject: str, source_ip: str) -> None:
        now = clock.now()
        limits, tripped = [], []
        for counter in self._counters(subject, source_ip, now):
            limit = ServiceLimit(counter.policy, counter.policy.quota - failures.get(counter.key, 0),
                                 counter.window.reset_after(now))
            limits.append(limit)
            if limit.remaining <= 0:
                tripped.append(limit)
        if tripped:
            raise self._refused(limits, tripped)

    def _counters(self, subject: str, source_ip: str, now: float) -> list[_Counter]:
        p = self.policies
        subject_window = window_at(now, p.subject.window, f"{self.kind}:{subject}")
        ip_window = window_at(now, p.ip.window, f"ip:{source_ip}")
        # Subjects and IPs are hashed into the key: no raw client id or address in the table. The address
        # counter is this kind's own: 30 forgotten-password requests must not refuse a sign-in or a client.
        return [
            _Counter(p.subject, failure_key(self.kind, subject, subject_window), subject_window),
            _Counter(p.ip, failure_key(f"{self.kind}-ip", source_ip or "unknown", ip_window), ip_window),
        ]

    def _refused(self, limits: list[ServiceLimit], tripped: list[ServiceLimit]) -> ApiError:
        retry = max(s.reset for s in tripped)
        headers = header_fields(limits)
        headers["Retry-After"] = str(retry)
        what = "client" if self.kind == "client" else "account"
        return ApiError(
            "rate_limited",
            f"Too many failed authentication attempts for this {what} or address; "
            f"retry after {retry} seconds.",
            internal="failed-auth limit: " + ", ".join(s.policy.name for s in tripped),
            headers=headers,
            # RFC 6749 has no token-endpoint code for this; temporarily_unavailable is the
            # registered "retry later" code, and the 429 status says why (docs/limits.md).
            oauth_error="temporarily_unavailable",
        )
