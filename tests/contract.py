"""The error contract, checked on every error response a test sees (contract 7.4).

`check_response` runs a response through authgate_cli.check.read_error and fails the test on any
defect. The `invoke` fixture calls it for every handler result; e2e tests use
`ContractSession`, a requests.Session that does the same for every HTTP response.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import requests

from authgate_cli.check import ErrorReading, read_error


class ContractViolation(AssertionError):
    """An error response broke the contract; the message lists the defects."""


def check_response(status: int, headers: Mapping[str, Any], body: Any, *, api: bool = True) -> ErrorReading | None:
    """Fail on any contract defect of a failure (>= 400, or a 2xx with success:false)."""
    reading = read_error(status, headers, body, api=api)
    if not reading.is_failure:
        if reading.defects:
            raise ContractViolation(f"{status} response breaks the error contract: {', '.join(reading.defects)}")
        return None
    if reading.defects:
        raise ContractViolation(
            f"{status} {reading.shape} response breaks the error contract: {', '.join(reading.defects)}\n"
            f"headers: {dict(headers)}\nbody: {body!r}")
    return reading


def check_proxy_result(result: Mapping[str, Any], *, api: bool = True) -> ErrorReading | None:
    """check_response for a Lambda proxy result (multiValueHeaders and/or headers)."""
    headers: list[tuple[str, str]] = []
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((name, v) for v in values)
    seen = {name.lower() for name, _ in headers}
    headers.extend((n, v) for n, v in (result.get("headers") or {}).items() if n.lower() not in seen)
    body = result.get("body") or ""
    if result.get("isBase64Encoded"):
        import base64

        body = base64.b64decode(body)
    return check_response(int(result["statusCode"]), headers, body, api=api)


def is_browser_route(path: str) -> bool:
    """Routes meant for a person's browser, where an HTML error page is the contract."""
    return path.startswith(("/oauth/authorize", "/oauth/logout", "/problems/", "/oauth/forgot-password",
                            "/oauth/reset-password", "/oauth/account", "/oauth/approve", "/console/")) \
        or path in ("/oauth/device", "/oauth/federation/callback", "/oauth/federation/logged-out", "/console") \
        or (path.startswith("/saml/") and path.endswith(("/acs", "/slo")))


class ContractSession(requests.Session):
    """A requests.Session that checks every response against the error contract.

        session = ContractSession("http://127.0.0.1:3000")
        session.post("/oauth/token", data=...)   # raises ContractViolation on a defect

    `readings` keeps the ErrorReading of every failure seen, for assertions.
    """

    def __init__(self, base_url: str = "") -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.readings: list[ErrorReading] = []
        self.hooks["response"].append(self._check)

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        if isinstance(url, str) and url.startswith("/"):
            url = self.base_url + url
        return super().request(method, url, *args, **kwargs)

    def _check(self, response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
        from urllib.parse import urlsplit

        reading = check_response(response.status_code, list(response.headers.items()), response.content,
                                 api=not is_browser_route(urlsplit(response.url).path))
        if reading is not None:
            self.readings.append(reading)
        return response
