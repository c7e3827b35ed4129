"""What a probe reports: findings (a rule broken by one answer) and the probe's outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from authgate_cli.check import redaction
from authgate_cli.check.rules import RULES, Severity
from authgate_cli.check.transport import Exchange, Request

Outcome = Literal["pass", "warn", "fail", "skip"]


@dataclass(frozen=True)
class Seen:
    """The part of an answer a finding shows: status, Content-Type, a few headers, a body excerpt."""

    status: int
    content_type: str
    headers: dict[str, str]
    body_excerpt: str


@dataclass(frozen=True)
class Shown:
    """A request as a report shows it: credentials masked, body by size only."""

    method: str
    url: str
    headers: dict[str, str]
    body_bytes: int | None = None


# Answer headers a finding repeats: the ones the rules are about.
_SHOWN_ANSWER_HEADERS = ("content-type", "www-authenticate", "allow", "retry-after", "x-request-id",
                         "x-correlation-id", "traceparent", "cache-control", "pragma", "ratelimit",
                         "ratelimit-policy", "location", "idempotent-replayed")


def show_request(request: Request, secret_headers: frozenset[str] = frozenset()) -> Shown:
    return Shown(request.method, request.url, redaction.request_headers(request.headers, secret_headers),
                 None if request.body is None else len(request.body))


def show_answer(exchange: Exchange) -> Seen:
    response = exchange.response
    headers = {name: value for name in _SHOWN_ANSWER_HEADERS if (value := response.header(name)) is not None}
    if "www-authenticate" in headers:  # an error_description may quote what was sent
        headers["www-authenticate"] = redaction.body_excerpt(headers["www-authenticate"].encode(), 200)
    return Seen(response.status, response.header("content-type") or "", headers,
                redaction.body_excerpt(response.body))


@dataclass(frozen=True)
class Finding:
    rule: str
    message: str
    severity: Severity
    request: Shown | None = None
    seen: Seen | None = None
    basis: str | None = None  # the probe's own citation, for the per-probe rules (expected-status, -code)

    @property
    def cite(self) -> str:
        return self.basis or RULES[self.rule].cite

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "cite": self.cite,
            "message": self.message,
            "request": None if self.request is None else {
                "method": self.request.method, "url": self.request.url, "headers": self.request.headers,
                "body_bytes": self.request.body_bytes},
            "seen": None if self.seen is None else {
                "status": self.seen.status, "content_type": self.seen.content_type,
                "headers": self.seen.headers, "body_excerpt": self.seen.body_excerpt},
        }


@dataclass
class ProbeResult:
    name: str
    title: str
    group: str
    findings: list[Finding] = field(default_factory=list)
    skip_reason: str | None = None
    notes: list[str] = field(default_factory=list)
    requests: int = 0
    duration_ms: float = 0.0

    @property
    def outcome(self) -> Outcome:
        if any(f.severity == "defect" for f in self.findings):
            return "fail"
        if self.skip_reason is not None:
            return "skip"
        return "warn" if self.findings else "pass"

    @property
    def defects(self) -> int:
        return sum(1 for f in self.findings if f.severity == "defect")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")
