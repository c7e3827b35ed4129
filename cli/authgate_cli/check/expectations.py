"""Judging one answer: the reading rules (contract 7.4, 7.5) plus what a probe expects of it.

`Expect` is the declarative half of a probe: acceptable statuses and codes, the challenge a
401 must carry, whether the route may answer HTML, whether the request id must be echoed.
`judge` turns an exchange and its expectations into findings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from authgate_cli.check import reading
from authgate_cli.check.findings import Finding, show_answer, show_request
from authgate_cli.check.reading import ErrorReading, parse_challenge, read_error
from authgate_cli.check.rules import DEFECT_RULES, RULES, Severity
from authgate_cli.check.transport import Exchange

# The RFC 6749 5.2 / RFC 7009 2.2.1 error codes an OAuth endpoint may answer, plus the two
# RFC 6749 4.1.2.1 codes authgate also uses there for 429/5xx (docs/limits.md).
OAUTH_CODES = frozenset({"invalid_request", "invalid_client", "invalid_grant", "unauthorized_client",
                         "unsupported_grant_type", "invalid_scope", "unsupported_token_type",
                         "temporarily_unavailable", "server_error"})
# RFC 6749 5.2: "400 (Bad Request) ... unless specified otherwise" (405 is, by RFC 9110).
OAUTH_400_CODES = frozenset({"invalid_request", "invalid_grant", "unauthorized_client", "unsupported_grant_type",
                             "invalid_scope", "unsupported_token_type"})
LIMITED = (429, 503)


@dataclass(frozen=True)
class Expect:
    """What a probe expects of an answer; every field is optional."""

    status: tuple[int, ...] = ()          # acceptable statuses (empty: any)
    status_rule: str = "expected-status"
    status_severity: Severity = "defect"
    codes: tuple[str, ...] = ()           # acceptable error codes, as read_error reads them
    code_rule: str = "expected-code"
    challenge: str | None = None          # the auth-scheme WWW-Authenticate must name
    challenge_error: str | None = None    # its error= parameter; "" means none may be given
    challenge_rule: str = "bearer-challenge"
    # A step-up challenge (RFC 6750 3.1, RFC 9728 5.1): scope= must name these scope tokens, and
    # resource_metadata= must be an absolute URL.
    challenge_scope: str | None = None
    refused_method: str | None = None     # a 405's Allow must not list it
    echo: bool = True                     # a sent x-request-id must come back
    api: bool = True                      # False on browser routes, where HTML is the contract
    oauth: bool = False                   # an OAuth endpoint: RFC 6749 5.2 JSON
    documented: Callable[[int], bool] | None = None  # OpenAPI: is this status documented?
    refusal: Severity | None = None       # a negative request: a 2xx/3xx is negative-request-refused
    auth_first: bool = False              # sent without the credentials it needs: a 401/403 answers nothing
    cite: str | None = None               # what the status and code expectations rest on


@dataclass
class Verdict:
    findings: list[Finding]
    reading: ErrorReading
    limited: bool  # a 429/503 the probe did not ask for: the service declined to answer now
    preempted: bool = False  # refused for credentials before the question was asked (auth_first)


def _finding(rule: str, message: str, exchange: Exchange, secret: frozenset[str],
             severity: Severity | None = None, basis: str | None = None) -> Finding:
    return Finding(rule, message, severity or RULES[rule].severity, show_request(exchange.request, secret),
                   show_answer(exchange), basis)


def _defect_message(defect: str, r: ErrorReading, exchange: Exchange) -> str:
    response = exchange.response
    if defect == reading.STATUS_MISMATCH:
        body = r.body if isinstance(r.body, dict) else {}
        said = body.get("status", [e.get("status") for e in body.get("errors", []) if isinstance(e, dict)])
        return f"the body says status {json.dumps(said)} but the HTTP status is {response.status}"
    return {
        reading.UNPARSEABLE: f"a {response.status} whose body is in no documented error shape",
        reading.SUCCESS_FALSE_WITH_2XX: f"a {response.status} whose body says success:false",
        reading.PROBLEM_WITHOUT_MEDIA_TYPE:
            f"a problem-details body sent as {response.media_type or 'no Content-Type'}",
        reading.HTML_ON_API_ROUTE: f"an HTML page ({r.message or 'untitled'}) answers a {response.status} on an API route",
        reading.MISSING_CODE: f"a {r.shape} error body without a code",
        reading.NO_REQUEST_ID: "no x-request-id (nor x-correlation-id, cf-ray, traceparent) on the error",
        reading.TRACE_ID_MISMATCH: f"traceId differs from x-request-id {response.header('x-request-id')!r}",
        reading.NO_CHALLENGE: "a 401 without WWW-Authenticate",
        reading.NO_ALLOW: "a 405 without Allow",
        reading.NO_RETRY_AFTER: f"a {response.status} without Retry-After",
        reading.BAD_RETRY_AFTER: f"Retry-After {response.header('retry-after')!r} is neither seconds nor an HTTP-date",
    }[defect]


def type_uris(r: ErrorReading) -> list[str]:
    """The documentation URIs an error names: problem `type`, JSON:API links.type, OAuth error_uri."""
    body: Any = r.body
    if not isinstance(body, dict):
        return []
    found: list[Any] = []
    if r.shape == "problem":
        found.append(body.get("type"))
    elif r.shape == "jsonapi":
        found.extend((e.get("links") or {}).get("type") for e in body.get("errors") or [] if isinstance(e, dict))
    elif r.shape == "oauth":
        found.append(body.get("error_uri"))
    return [u for u in found if isinstance(u, str)]


def is_absolute(uri: str) -> bool:
    """RFC 3986 4.3: an absolute URI has a scheme (about:blank included); http(s) also needs a host."""
    parts = urlsplit(uri)
    if not parts.scheme or not parts.scheme[0].isalpha():
        return False
    return bool(parts.netloc) if parts.scheme in ("http", "https") else True


def judge(exchange: Exchange, expect: Expect, *, secret_headers: frozenset[str] = frozenset(),
          seen_types: dict[str, str] | None = None, probe: str = "") -> Verdict:
    """Findings for one answer: reading rules on any failure, then the probe's expectations."""
    response = exchange.response
    out: list[Finding] = []

    def add(rule: str, message: str, severity: Severity | None = None) -> None:
        basis = expect.cite if rule in ("expected-status", "expected-code") else None
        out.append(_finding(rule, message, exchange, secret_headers, severity, basis))

    r = read_error(response.status, response.headers, response.body, api=expect.api)
    for defect in r.defects:
        add(DEFECT_RULES[defect], _defect_message(defect, r, exchange))
    status = response.status
    limited = status in LIMITED and status not in expect.status

    if r.is_failure:
        if response.body.strip() and not response.header("content-type"):
            add("content-type-present", f"a {status} with a {len(response.body)}-byte body and no Content-Type")
        for uri in type_uris(r):
            if not is_absolute(uri):
                add("problem-type-absolute", f"the problem type {uri!r} is not an absolute URI")
            elif seen_types is not None and urlsplit(uri).scheme in ("http", "https"):
                seen_types.setdefault(uri, probe)
        sent_id = exchange.request.header("x-request-id")
        echoed = response.header("x-request-id")
        if expect.echo and sent_id and echoed is not None and echoed != sent_id:
            add("request-id-echoed", f"sent x-request-id {sent_id!r}, got {echoed!r} back")
        if status >= 500 and status != 503 and 500 not in expect.status and status not in expect.status:
            add("client-error-not-5xx", f"a request the client got wrong was answered {status}")
        if expect.oauth and status not in LIMITED:
            if not (r.shape == "oauth" and r.code in OAUTH_CODES):
                add("oauth-error-shape", f"expected RFC 6749 JSON {{error, error_description}}; read a {r.shape} "
                                         f"body with code {r.code!r}")
            elif r.code in OAUTH_400_CODES and status not in (400, 405):
                add("oauth-error-status", f"{r.code} with status {status}; RFC 6749 5.2 gives 400")
            elif r.code == "invalid_client" and status not in (400, 401):
                add("oauth-error-status", f"invalid_client with status {status}; RFC 6749 5.2 gives 401 (or 400)")
    if status == 405 and expect.refused_method:
        allow = [m.strip().upper() for m in (response.header("allow") or "").split(",") if m.strip()]
        if expect.refused_method.upper() in allow:
            add("allow-on-405", f"Allow lists {expect.refused_method}, the method it just refused")
    if limited:
        return Verdict(out, r, limited=True)
    if expect.auth_first and status in (401, 403) and status not in expect.status:
        return Verdict(out, r, limited=False, preempted=True)

    if expect.refusal is not None and status < 400:
        add("negative-request-refused", f"a request the API cannot accept was answered {status}", expect.refusal)
    elif expect.status and status not in expect.status:
        wanted = " or ".join(str(s) for s in expect.status)
        add(expect.status_rule, f"expected {wanted}, got {status}", expect.status_severity)
    if expect.codes and r.is_failure and r.code not in expect.codes:
        add(expect.code_rule, f"expected code {' or '.join(expect.codes)}, got {r.code!r}")
    if expect.challenge and status in (400, 401, 403) and (status == 401 or expect.challenge_error):
        _judge_challenge(response.header("www-authenticate"), expect, add)
    if expect.documented is not None and not expect.documented(status):
        add("status-documented", f"{status} is not among the operation's documented responses")
    return Verdict(out, r, limited=False)


def _judge_challenge(value: str | None, expect: Expect, add: Callable[..., None]) -> None:
    if not value:
        if expect.challenge_error:  # a 401 without one is already challenge-on-401
            add(expect.challenge_rule, f"no WWW-Authenticate; expected {expect.challenge} with "
                                       f"error=\"{expect.challenge_error}\"")
        return
    scheme, params = parse_challenge(value)
    if scheme.lower() != (expect.challenge or "").lower():
        add(expect.challenge_rule, f"challenge scheme {scheme!r}, expected {expect.challenge}")
        return
    error = params.get("error")
    if expect.challenge_error == "" and error:
        add(expect.challenge_rule, f"error=\"{error}\" in the challenge of a request without credentials "
                                   "(RFC 6750 3.1: no error code then)", "warning")
    elif expect.challenge_error and error != expect.challenge_error:
        add(expect.challenge_rule, f"challenge error={error!r}, expected \"{expect.challenge_error}\"")
    if expect.challenge_scope is not None:
        _judge_step_up(params, expect.challenge_scope, add)
    if error == "insufficient_user_authentication":
        _judge_authentication_step_up(params, add)


# RFC 9470 3: acr_values is a space-separated list of acr values; RFC 6749 A-style visible ASCII tokens.
_ACR = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*")


def _judge_authentication_step_up(params: dict[str, str], add: Callable[..., None]) -> None:
    """RFC 9470 3: what the client must obtain (acr_values, max_age), in a syntax it can send back as is."""
    rule = "step-up-authentication-challenge"
    acr_values, max_age = params.get("acr_values"), params.get("max_age")
    if acr_values is None and max_age is None:
        add(rule, "the insufficient_user_authentication challenge names neither acr_values nor max_age: the client "
                  "cannot tell what to ask for (RFC 9470 3)")
    if acr_values is not None and not _ACR.fullmatch(acr_values):
        add(rule, f"acr_values=\"{acr_values[:100]}\" is not a space-separated list of acr values (RFC 9470 3)")
    if max_age is not None and not (max_age.isascii() and max_age.isdigit()):
        add(rule, f"max_age=\"{max_age[:100]}\" is not a number of seconds (RFC 9470 3)")


def _judge_step_up(params: dict[str, str], needed: str, add: Callable[..., None]) -> None:
    """What a client needs to step up on its own: the scopes to ask for, and where the resource's metadata is."""
    missing = [s for s in needed.split() if s not in (params.get("scope") or "").split()]
    if "scope" not in params:
        add("step-up-challenge", f"no scope= in the insufficient_scope challenge; expected it to name {needed}")
    elif missing:
        add("step-up-challenge", f"scope=\"{params['scope']}\" does not name {' '.join(missing)}, which the "
                                 "operation needs")
    metadata = params.get("resource_metadata")
    if not metadata:
        add("step-up-challenge", "no resource_metadata= in the insufficient_scope challenge (RFC 9728 5.1)")
    elif not metadata.startswith(("https://", "http://")):
        add("step-up-challenge", f"resource_metadata=\"{metadata[:100]}\" is not an absolute URL")
