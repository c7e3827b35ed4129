"""A probe: a name, the request(s) it sends, what it expects, the rules its findings cite.

Most probes are one declared request (`RequestProbe`: a `Send` and an `Expect`); the few that
need several steps (discovery, the state-changing probes) are `ScenarioProbe`s whose step
function still judges every answer with `Context.judge`.
"""

from __future__ import annotations

import base64
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urljoin

from authgate_cli.check.expectations import Expect, Verdict, judge
from authgate_cli.check.findings import Finding, ProbeResult, show_answer, show_request
from authgate_cli.check.rules import RULES, Severity
from authgate_cli.check.transport import Client, Exchange

# Credentials a Send may ask for by name; Context.headers_for turns them into headers.
API_KEY = "api_key"
USER_HEADERS = "user_headers"
BEARER_EMPTY = "bearer:empty"
BEARER_GARBAGE = "bearer:garbage"
BEARER_EXPIRED = "bearer:expired"
BEARER_FOREIGN = "bearer:foreign"
BASIC_UNKNOWN = "basic:unknown-client"


class CannotRun(Exception):
    """The check cannot go on (bad credentials, unusable document): exit 2 with this line."""


@dataclass(frozen=True)
class Options:
    """What the user told the run (command-line options)."""

    api_key: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    mutating: bool = False
    resource: str = "/charges"
    scope: str = "charges:read charges:write"
    read_scope: str = "charges:read"
    audience: str | None = None
    currency: str = "usd"
    amount: int = 100
    burst: int = 100
    burst_seconds: float = 30.0
    user_headers: tuple[tuple[str, str], ...] = ()
    # A user's access token whose sign-in is below the tenant's strong-authentication level, and the
    # tenant's threshold: the RFC 9470 step-up probe (mutating.sca-challenge).
    user_token: str | None = None
    sca_amount: int | None = None


@dataclass(frozen=True)
class Send:
    """A request, declared. `target` is a path under the base URL, or "@member" of the metadata
    (with `fallback` the path used when discovery did not give it)."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    credentials: tuple[str, ...] = ()
    fallback: str = ""


@dataclass
class Context:
    """Shared by the probes of one run: the base URL, the client, what discovery found."""

    base_url: str
    client: Client
    options: Options
    run_id: str = field(default_factory=lambda: secrets.token_hex(4))
    metadata: dict[str, Any] | None = None
    jwks: dict[str, Any] | None = None
    seen_types: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    # Answers obtained before the probes ran, for the probe that judges them (mutating.credentials).
    early: dict[str, Exchange] = field(default_factory=dict)
    current: ProbeResult | None = None
    _count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def issuer(self) -> str:
        issuer = (self.metadata or {}).get("issuer")
        return issuer if isinstance(issuer, str) and issuer else self.base_url

    @property
    def audience(self) -> str:
        return self.options.audience or f"{self.issuer}/charges"

    @property
    def secret_headers(self) -> frozenset[str]:
        return frozenset(name.lower() for name, _ in self.options.user_headers)

    def url(self, target: str, fallback: str = "") -> str:
        if target.startswith("@"):
            found = (self.metadata or {}).get(target[1:])
            if isinstance(found, str) and found:
                return urljoin(self.base_url + "/", found)
            target = fallback
        return self.base_url + target

    def next_request_id(self) -> str:
        with self._lock:
            self._count += 1
            return f"authgate-check-{self.run_id}-{self._count:03d}"

    def headers_for(self, credentials: tuple[str, ...]) -> list[tuple[str, str]]:
        headers: list[tuple[str, str]] = []
        for kind in credentials:
            if kind == API_KEY and self.options.api_key:
                headers.append(("x-api-key", self.options.api_key))
            elif kind == USER_HEADERS:
                headers.extend(self.options.user_headers)
            elif kind == BEARER_EMPTY:
                headers.append(("Authorization", "Bearer"))
            elif kind == BEARER_GARBAGE:
                headers.append(("Authorization", f"Bearer authgate-check.{self.run_id}.not-a-token"))
            elif kind in (BEARER_EXPIRED, BEARER_FOREIGN):
                from authgate_cli.check.tokens import foreign_token

                token = foreign_token(issuer=self.issuer, audience=self.audience, kid=self.published_kid(),
                                      expired=kind == BEARER_EXPIRED)
                headers.append(("Authorization", f"Bearer {token}"))
            elif kind == BASIC_UNKNOWN:
                pair = f"{quote(f'authgate-check-{self.run_id}', safe='')}:not-a-secret".encode()
                headers.append(("Authorization", "Basic " + base64.b64encode(pair).decode()))
        return headers

    def published_kid(self) -> str:
        for key in (self.jwks or {}).get("keys", []):
            if isinstance(key, dict) and isinstance(key.get("kid"), str):
                return key["kid"]
        return "authgate-check-unknown-kid"

    def exchange(self, method: str, url: str, headers: list[tuple[str, str]] | tuple[tuple[str, str], ...] = (),
                 body: bytes | None = None, *, request_id: bool = True) -> Exchange:
        """Send one request (with a fresh x-request-id unless told otherwise), counted on the probe."""
        items = list(headers)
        if request_id and not any(name.lower() == "x-request-id" for name, _ in items):
            items.append(("x-request-id", self.next_request_id()))
        exchange = self.client.send(method, url, items, body)
        if self.current is not None:
            with self._lock:
                self.current.requests += 1
        return exchange

    def send(self, spec: Send) -> Exchange:
        headers = [*spec.headers, *self.headers_for(spec.credentials)]
        return self.exchange(spec.method, self.url(spec.target, spec.fallback), headers, spec.body)

    def judge(self, exchange: Exchange, expect: Expect) -> Verdict:
        """Judge an answer and record its findings on the current probe (a 429/503 it did not ask for
        makes the probe a skip: the service declined to answer now)."""
        verdict = judge(exchange, expect, secret_headers=self.secret_headers, seen_types=self.seen_types,
                        probe=self.current.name if self.current else "")
        if self.current is not None:
            self.current.findings.extend(verdict.findings)
            if verdict.limited:
                retry = exchange.response.header("retry-after")
                self.current.skip_reason = (f"answered {exchange.response.status}: the service limited the check"
                                            + (f"; run again after {retry} s" if retry else ""))
            elif verdict.preempted:
                self.current.skip_reason = (f"refused with {exchange.response.status} for missing credentials before "
                                            "the request was judged; pass them with --header")
        return verdict

    def find(self, rule: str, message: str, exchange: Exchange | None = None,
             severity: Severity | None = None) -> None:
        """Record a finding on the current probe (a rule a step checked itself)."""
        assert self.current is not None
        self.current.findings.append(Finding(
            rule, message, severity or RULES[rule].severity,
            show_request(exchange.request, self.secret_headers) if exchange else None,
            show_answer(exchange) if exchange else None))


@dataclass(frozen=True)
class Probe:
    name: str
    title: str
    rules: tuple[str, ...]
    needs: tuple[str, ...] = ()  # API_KEY, "mutating", USER_HEADERS (soft: only explains a skip)

    @property
    def group(self) -> str:
        return self.name.split(".", 1)[0]

    def run(self, ctx: Context) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class RequestProbe(Probe):
    send: Send = field(default_factory=lambda: Send("GET", "/"))
    expect: Expect = field(default_factory=Expect)

    def run(self, ctx: Context) -> None:
        ctx.judge(ctx.send(self.send), self.expect)


@dataclass(frozen=True)
class ScenarioProbe(Probe):
    steps: Callable[[Context], None] = lambda ctx: None

    def run(self, ctx: Context) -> None:
        self.steps(ctx)


def form(fields: Mapping[str, str]) -> bytes:
    """An application/x-www-form-urlencoded body (RFC 6749 appendix B)."""
    from urllib.parse import urlencode

    return urlencode(dict(fields)).encode()
