"""Log hygiene (contract 5.7, RFC 9700 4.14): collect the secrets a test used or received, and
assert that none of them appears in any log line.

`SecretHarvest` gathers secrets from what crosses the wire: Authorization values (and the
secret inside a Basic credential), cookies, API keys, form fields such as password,
client_secret, code and code_verifier, token responses (access, refresh), codes in redirect
Locations, and the login form's hidden request blob and CSRF token. `LogCapture` is a handler
on the Powertools logger that keeps every formatted line (the exact JSON that would be
printed). `leaks(lines, secrets)` lists the secrets found in lines.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qsl, unquote_plus, urlsplit

# The demo seed's own secrets (README, "Demo credentials"), whatever a test sends.
DEMO_SECRETS = frozenset({
    "demo-web-secret", "demo-partner-secret", "demo-service-secret", "demo-reader-secret",
    "demo-legacy-a-secret", "demo-legacy-b-secret", "acme-service-secret", "staging-web-secret", "demo-agent-secret",
    "alice-password", "demo-api-key",
    # The console's demo owner (docs/local.md): her password and her one-time code key.
    "olivia-password", "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
    # Demo Corp SSO's client secret (the demo seed's identity provider), sealed in its record.
    "democorp-sso-secret",
})
SECRET_FIELDS = frozenset({"password", "client_secret", "code", "code_verifier", "refresh_token",
                           "access_token", "id_token", "token", "request_blob", "csrf", "assertion",
                           "client_assertion", "device_code", "user_code"})
# In JSON bodies "code" is an error code, not an authorization code: only these are secrets.
JSON_SECRET_FIELDS = frozenset({"access_token", "refresh_token", "id_token", "client_secret", "password",
                                "device_code", "user_code"})
# Shorter values (e.g. "x" in a fuzzed form) would match by accident; real secrets are longer.
MIN_SECRET_LENGTH = 8
# Words the service logs by design (its error codes, OAuth's): a fuzzed request that happens to
# send one as a "secret" must not make an ordinary log line look like a leak.
VOCABULARY = frozenset(entry["code"] for entry in json.loads(
    (Path(__file__).resolve().parents[1] / "layers/authgate/authgate/errors/catalogue.json").read_text("utf-8"))["codes"])
_HIDDEN = re.compile(r'<input[^>]*name="(request_blob|csrf)"[^>]*value="([^"]*)"')


class SecretHarvest:
    """The set of secrets seen so far."""

    def __init__(self, initial: Iterable[str] = DEMO_SECRETS, *, requests: bool = True) -> None:
        # requests=False: fuzzed requests carry random text, not secrets (and Hypothesis reuses
        # one drawn string across fields); only what the server hands out is harvested.
        self.requests = requests
        self.secrets: set[str] = set()
        for value in initial:
            self.add(value)

    def add(self, value: Any) -> None:
        if isinstance(value, str) and len(value.strip()) >= MIN_SECRET_LENGTH and value.strip() not in VOCABULARY:
            self.secrets.add(value.strip())

    def headers(self, pairs: Iterable[tuple[str, Any]]) -> None:
        for name, value in pairs:
            lower, text = name.lower(), str(value)
            if lower in ("authorization", "proxy-authorization"):
                self.add(text)
                scheme, _, credentials = text.partition(" ")
                self.add(credentials)
                if scheme.lower() == "basic":
                    self._basic(credentials.strip())
            elif lower in ("cookie", "set-cookie"):
                for part in text.split(";"):
                    self.add(part.partition("=")[2])
            elif lower == "x-api-key":
                self.add(text)
            elif lower == "location":
                self.query(urlsplit(text).query)

    def _basic(self, credentials: str) -> None:
        try:
            raw = base64.b64decode(credentials, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return
        self.add(unquote_plus(raw.partition(":")[2]))

    def query(self, text: str) -> None:
        for name, value in parse_qsl(text or "", keep_blank_values=True):
            if name in SECRET_FIELDS:
                self.add(value)

    def body(self, body: Any, content_type: str | None = None) -> None:
        if isinstance(body, bytes):
            body = body.decode("utf-8", "replace")
        if not isinstance(body, str) or not body:
            return
        media = (content_type or "").split(";")[0].strip().lower()
        if media == "application/x-www-form-urlencoded":
            self.query(body)
        elif "json" in media or body.lstrip().startswith("{"):
            try:
                data = json.loads(body)
            except ValueError:
                return
            if isinstance(data, Mapping):
                for name in JSON_SECRET_FIELDS:
                    self.add(data.get(name))
        elif "html" in media or "<form" in body:
            for _, value in _HIDDEN.findall(body):
                self.add(value)

    def proxy_exchange(self, event: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        """Harvest one in-process invocation: the REST v1 event and its proxy result."""
        if self.requests:
            self._proxy_request(event)
        response_headers = _proxy_headers(result)
        self.headers(response_headers)
        self.body(result.get("body"), {k.lower(): v for k, v in response_headers}.get("content-type"))

    def _proxy_request(self, event: Mapping[str, Any]) -> None:
        self.headers(_proxy_headers(event))
        self.query("&".join(f"{k}={v}" for k, values in (event.get("multiValueQueryStringParameters") or {}).items()
                            for v in values or []))
        request_type = {k.lower(): v for k, v in _proxy_headers(event)}.get("content-type")
        self.body(event.get("body"), request_type)


def _proxy_headers(message: Mapping[str, Any]) -> list[tuple[str, str]]:
    pairs = [(k, str(v)) for k, values in (message.get("multiValueHeaders") or {}).items() for v in values or []]
    seen = {k.lower() for k, _ in pairs}
    pairs += [(k, str(v)) for k, v in (message.get("headers") or {}).items() if k.lower() not in seen]
    return pairs


class LogCapture(logging.Handler):
    """Keeps each record exactly as the service's logger prints it (its formatter, its filters)."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        from authgate.logs import get_logger

        self.logger = get_logger()
        self.lines: list[str] = []
        from authgate.logs import FORMATTER

        self.setFormatter(FORMATTER)

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    def __enter__(self) -> Self:
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self)


def leaks(lines: Iterable[str], secrets: Iterable[str]) -> list[tuple[str, str]]:
    """(secret, line) for every secret that appears in a line, also JSON- or URL-escaped."""
    found = []
    text_lines = list(lines)
    for secret in secrets:
        forms = {secret, json.dumps(secret)[1:-1]}
        for line in text_lines:
            if any(form in line for form in forms):
                found.append((secret, line[:300]))
                break
    return found
