"""The checker's HTTP client: one request, one answer, nothing implicit (RFC 9110, RFC 9112).

Built on the standard library's http.client, which never follows a redirect, keeps repeated
header fields and lets a probe send exactly the method, headers and bytes it means (a malformed
body, a wrong Content-Type). Every request has a timeout and is charged to one run-wide budget.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

MAX_BODY = 1 << 20  # read at most 1 MiB of any answer: an error document is never that large
USER_AGENT = "authgate-check/1"


class TransportError(Exception):
    """The request got no HTTP answer (refused, reset, timed out, TLS failure, not HTTP)."""

    def __init__(self, message: str, request: Request | None = None) -> None:
        super().__init__(message)
        self.request = request


class BudgetSpent(Exception):
    """The run's time budget is used up; no further request is sent."""


class InvalidBaseUrl(ValueError):
    """The base URL is not an absolute http(s) URL without query or fragment."""


def base_url_of(text: str) -> str:
    """`text` as a base URL without a trailing slash, or InvalidBaseUrl."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidBaseUrl(f"not an http(s) URL: {text!r}")
    if parts.query or parts.fragment:
        raise InvalidBaseUrl(f"a base URL has no query or fragment: {text!r}")
    try:
        _ = parts.port  # urlsplit checks the port only when asked
    except ValueError:
        raise InvalidBaseUrl(f"bad port in {text!r}") from None
    return text.strip().rstrip("/")


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


@dataclass(frozen=True)
class Response:
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        """All values of `name` joined by ", " (RFC 9110 5.3), or None."""
        values = [v for k, v in self.headers if k.lower() == name.lower()]
        return ", ".join(values) if values else None

    @property
    def media_type(self) -> str:
        return (self.header("content-type") or "").split(";", 1)[0].strip().lower()


@dataclass(frozen=True)
class Exchange:
    request: Request
    response: Response


@dataclass
class Budget:
    """The run's time limit: each request gets min(timeout, what is left)."""

    seconds: float
    started: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.started)


class Client:
    """Sends one request per connection; TLS certificates are verified (ssl default context)."""

    def __init__(self, *, timeout: float, budget: Budget) -> None:
        self.timeout = timeout
        self.budget = budget
        self.sent = 0
        self.answered = 0  # requests that got an HTTP answer: none yet means the base URL is unreachable
        self._tls = ssl.create_default_context()

    def send(self, method: str, url: str, headers: Mapping[str, str] | Iterable[tuple[str, str]] = (),
             body: bytes | None = None) -> Exchange:
        items = tuple(headers.items() if isinstance(headers, Mapping) else headers)
        request = Request(method, url, items, body)
        left = self.budget.left()
        if left <= 0:
            raise BudgetSpent()
        timeout = max(0.1, min(self.timeout, left))
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout,
                                                     context=self._tls)
        else:
            connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
        self.sent += 1
        try:
            connection.putrequest(method, target, skip_accept_encoding=True)
            names = {name.lower() for name, _ in items}
            if "user-agent" not in names:
                connection.putheader("User-Agent", USER_AGENT)
            for name, value in items:
                connection.putheader(name, value)
            if body is not None or method in ("POST", "PUT", "PATCH"):
                connection.putheader("Content-Length", str(len(body or b"")))
            connection.endheaders(body or None)
            answer = connection.getresponse()
            data = answer.read(MAX_BODY + 1)
            response = Response(status=answer.status, reason=answer.reason, headers=tuple(answer.getheaders()),
                                body=data[:MAX_BODY])
        except TimeoutError:
            raise TransportError(f"no answer within {timeout:.0f} s", request) from None
        except ssl.SSLError as exc:
            raise TransportError(f"TLS failed: {exc.reason or exc}", request) from None
        except socket.gaierror as exc:
            raise TransportError(f"cannot resolve {parts.hostname}: {exc.strerror}", request) from None
        except ConnectionRefusedError:
            raise TransportError("connection refused", request) from None
        except (ConnectionError, OSError, http.client.HTTPException) as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}".rstrip(": "), request) from None
        finally:
            connection.close()
        self.answered += 1
        return Exchange(request, response)
