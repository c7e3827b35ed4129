"""POST to a URL someone else chose: a form (OpenID Connect Back-Channel Logout 1.0 2.5) or any body (a tenant's
CIBA approval webhook, docs/ciba.md).

Under every rule of authgate.outbound.connection (one resolution, every address checked, the
connection pinned to it, TLS verified, time and bytes bounded at the socket). The URL is https
(http only to a loopback host when the local stack allows loopback), without userinfo or a
fragment. Redirects are never followed (BCL 2.5: the RP answers 200, or 204). The response body
is read up to `limits.max_bytes` and otherwise ignored.

`exchange` is the one request both this module and authgate.outbound.get make.
`Failed.retry` says whether trying again later may help: a network failure, a timeout or a 5xx
(or 429) may pass; a refused address, a bad URL, a redirect or another 4xx will not.
"""

from __future__ import annotations

import http.client
import ssl
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NamedTuple, TypeVar
from urllib.parse import urlencode, urlsplit

from authgate.outbound.connection import (
    AddressRefused,
    Limits,
    PinnedConnection,
    Resolver,
    Unreachable,
    WireExceeded,
    default_context,
    pinned_address,
    system_resolver,
)

USER_AGENT = "authgate (outbound)"
FORM = "application/x-www-form-urlencoded"
DEFAULT_LIMITS = Limits(connect=2.0, read=3.0, total=5.0, max_bytes=4 * 1024)
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
T = TypeVar("T")
# What a caller reads of a response (its body, or nothing), within the limits and by the deadline.
Reader = Callable[[http.client.HTTPResponse, Limits, float], T]


class Target(NamedTuple):
    """A checked URL, split for the request."""

    url: str
    host: str
    port: int
    tls: bool
    target: str

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == (443 if self.tls else 80) else f"{host}:{self.port}"


class Failed(Exception):
    """The POST did not get a 2xx; `internal` says what happened (for logs), `retry` whether to try again."""

    def __init__(self, internal: str, *, retry: bool) -> None:
        super().__init__(internal)
        self.internal = internal
        self.retry = retry


def target(url: str, *, allow_loopback: bool = False) -> Target:
    """`url` checked (https, or http to loopback when allowed; no userinfo, no fragment); Failed otherwise."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        raise Failed("malformed port", retry=False) from None
    host = (parts.hostname or "").lower()
    plain = parts.scheme == "http" and allow_loopback and host in _LOOPBACK_HOSTS
    if parts.scheme != "https" and not plain:
        raise Failed("not an https URL", retry=False)
    if not host or parts.username is not None or parts.password is not None or parts.fragment or "#" in url:
        raise Failed("no host, or userinfo or a fragment", retry=False)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(url, host, port or (80 if plain else 443), not plain, path)


def post_form(url: str, fields: dict[str, str], *, resolver: Resolver = system_resolver,
              allow_loopback: bool = False, context: ssl.SSLContext | None = None,
              limits: Limits = DEFAULT_LIMITS) -> int:
    """POST `fields` as application/x-www-form-urlencoded to `url`; the 2xx status, or Failed."""
    return post(url, urlencode(fields).encode("ascii"), FORM, resolver=resolver, allow_loopback=allow_loopback,
                context=context, limits=limits)


def post(url: str, body: bytes, content_type: str, *, headers: dict[str, str] | None = None,
         resolver: Resolver = system_resolver, allow_loopback: bool = False, context: ssl.SSLContext | None = None,
         limits: Limits = DEFAULT_LIMITS) -> int:
    """POST `body` of `content_type` (and `headers`) to `url`; the 2xx status, or Failed."""
    response, _ = exchange(url, "POST", {"Content-Type": content_type, "Content-Length": str(len(body)),
                                         **(headers or {})}, body, read=_drain, resolver=resolver,
                           allow_loopback=allow_loopback, context=context, limits=limits)
    if 200 <= response.status < 300:
        return response.status
    raise Failed(f"it answered HTTP {response.status}", retry=response.status >= 500 or response.status == 429)


def exchange(url: str, method: str, headers: dict[str, str], body: bytes | None, *, read: Reader[T],
             resolver: Resolver, allow_loopback: bool, context: ssl.SSLContext | None,
             limits: Limits) -> tuple[http.client.HTTPResponse, T]:
    """One request to `url` under every rule above, and what `read` makes of its response by the deadline."""
    where = target(url, allow_loopback=allow_loopback)
    deadline = time.monotonic() + limits.total
    connection = open_connection(where, resolver=resolver, allow_loopback=allow_loopback, context=context,
                                 limits=limits, deadline=deadline)
    try:
        with failures():
            response = send(connection, method, where, headers, body)
            return response, read(response, limits, deadline)
    finally:
        connection.close()


def open_connection(where: Target, *, resolver: Resolver, allow_loopback: bool, context: ssl.SSLContext | None,
                    limits: Limits, deadline: float) -> http.client.HTTPConnection:
    """A connection (not yet connected) to the checked address of `where`'s host; Failed when there is none."""
    try:
        address = pinned_address(where.host, where.port, resolver, deadline, allow_loopback)
    except AddressRefused as exc:
        raise Failed(exc.internal, retry=False) from None
    except Unreachable as exc:
        raise Failed(exc.internal, retry=True) from None
    if where.tls:
        return PinnedConnection(where.host, where.port, address, context or default_context(), limits, deadline)
    # Loopback on the local stack only (target): no TLS to bound, the socket's timeout does.
    return http.client.HTTPConnection(address, where.port, timeout=min(limits.read, limits.total))


def send(connection: http.client.HTTPConnection, method: str, where: Target, headers: dict[str, str],
         body: bytes | None = None) -> http.client.HTTPResponse:
    """One request on `connection` (Host and User-Agent set here), its response's head read."""
    connection.connect()
    connection.putrequest(method, where.target, skip_host=True, skip_accept_encoding=True)
    connection.putheader("Host", where.authority)
    connection.putheader("User-Agent", USER_AGENT)
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.endheaders(body)
    return connection.getresponse()


@contextmanager
def failures() -> Iterator[None]:
    """What the network, TLS or the other server did inside the block, as Failed (retry where it may help)."""
    try:
        yield
    except ssl.SSLError as exc:
        raise Failed(f"TLS failed ({exc.reason or type(exc).__name__})", retry=True) from None
    except TimeoutError:
        raise Failed("it did not answer in time", retry=True) from None
    except WireExceeded:
        raise Failed("its answer was too large", retry=False) from None
    except (OSError, http.client.HTTPException) as exc:
        raise Failed(f"connection failed ({type(exc).__name__})", retry=True) from None


def _drain(response: http.client.HTTPResponse, limits: Limits, deadline: float) -> None:  # a Reader
    """Read the body (ignored) up to `limits.max_bytes`, by the deadline."""
    size = 0
    while time.monotonic() < deadline:
        chunk = response.read1(1024)
        if not chunk:
            return
        size += len(chunk)
        if size > limits.max_bytes:
            raise WireExceeded(f"more than {limits.max_bytes} bytes of body")
    raise TimeoutError("the request's time is spent")
