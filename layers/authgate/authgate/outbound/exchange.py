"""One request to a URL someone else chose, and its response read within bounds: what every outbound call is made of.

The URL is https (http only to a loopback host when the local stack allows loopback), without
userinfo or a fragment (`target`). The request goes under every rule of
authgate.outbound.connection: the host resolved once, every address checked, the connection
pinned to it, TLS verified, time and bytes bounded at the socket. A redirect is never followed
(its body is not read: the caller refuses it); any other response's body is read up to
`limits.max_bytes`, whatever its status, so a token endpoint's error (RFC 6749 5.2) reaches the
caller. Failures: AddressRefused, TooLarge, or Unreachable for everything else the network did,
each with what happened for logs (`internal`); callers say what they mean to their own callers.
"""

from __future__ import annotations

import http.client
import ssl
import time
from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import urlsplit

from authgate.outbound.connection import (
    WIRE_BYTES,
    Limits,
    PinnedConnection,
    Resolver,
    Unreachable,
    WireExceeded,
    default_context,
    pinned_address,
    system_resolver,
)

_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def loopback_allowed(url: str = "") -> bool:
    """Whether a request to `url` may reach this stack's own loopback interface: the local stack's development
    exception (draft-ietf-oauth-client-id-metadata-document-02 8.6), or `url` under the origin of the local
    stack's demo identity provider (settings.federation). The settings refuse both on any other stage."""
    from authgate.settings import get_settings

    settings = get_settings()
    origin = settings.demo_upstream
    return settings.allow_loopback_outbound or bool(origin and (url == origin or url.startswith(origin + "/")))


class BadUrl(ValueError):
    """A URL authgate never requests (not https, userinfo, a fragment, a malformed port)."""


class TooLarge(Unreachable):
    """More arrived than the request allows: headers past WIRE_BYTES, or a body past `limits.max_bytes`."""


class Target(NamedTuple):
    """A checked URL, split for the request."""

    url: str
    host: str
    port: int
    tls: bool
    target: str

    @property
    def authority(self) -> str:
        """The Host header (RFC 9110 7.2): the host as written, with the port when not the scheme's."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == (443 if self.tls else 80) else f"{host}:{self.port}"


class Response(NamedTuple):
    """What came back: the status, the headers (lower-case names) and the body (empty for a redirect)."""

    status: int
    headers: dict[str, str]
    body: bytes
    address: str

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")


def target(url: str, *, allow_loopback: bool = False) -> Target:
    """`url` checked (https, or http to loopback when allowed; no userinfo, no fragment); BadUrl otherwise."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        raise BadUrl("malformed port") from None
    host = (parts.hostname or "").lower()
    plain = parts.scheme == "http" and allow_loopback and host in _LOOPBACK_HOSTS
    if parts.scheme != "https" and not plain:
        raise BadUrl("not an https URL")
    if not host or parts.username is not None or parts.password is not None or parts.fragment or "#" in url:
        raise BadUrl("no host, or userinfo or a fragment")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(url, host, port or (80 if plain else 443), not plain, path)


def exchange(method: str, where: Target, *, body: bytes | None = None, headers: Mapping[str, str] | None = None,
             user_agent: str, limits: Limits, resolver: Resolver = system_resolver, allow_loopback: bool = False,
             context: ssl.SSLContext | None = None, deadline: float | None = None) -> Response:
    """`method` `where` with `headers` (and `body`), by `deadline` (time.monotonic(); default `limits.total` from now)."""
    if deadline is None:
        deadline = time.monotonic() + limits.total
    address = pinned_address(where.host, where.port, resolver, deadline, allow_loopback)
    connection: http.client.HTTPConnection
    if where.tls:
        connection = PinnedConnection(where.host, where.port, address, context or default_context(), limits, deadline)
    else:  # loopback on the local stack only (target): no TLS to bound, the socket's timeout does
        connection = http.client.HTTPConnection(address, where.port, timeout=min(limits.read, limits.total))
    try:
        try:
            connection.connect()
            connection.putrequest(method, where.target, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", where.authority)
            connection.putheader("User-Agent", user_agent)
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
        except ssl.SSLError as exc:
            raise Unreachable(f"TLS failed ({exc.reason or type(exc).__name__})") from None
        except TimeoutError:
            raise Unreachable("it did not answer in time") from None
        except WireExceeded:
            raise TooLarge(f"its headers passed {WIRE_BYTES} bytes") from None
        except (OSError, http.client.HTTPException) as exc:
            raise Unreachable(f"connection failed ({type(exc).__name__})") from None
        found = {name.lower(): value for name, value in response.getheaders()}
        redirected = 300 <= response.status < 400
        content = b"" if redirected else _read(response, limits, deadline)
        return Response(response.status, found, content, address)
    finally:
        connection.close()


def _read(response: http.client.HTTPResponse, limits: Limits, deadline: float) -> bytes:
    """The body, at most `limits.max_bytes`, by the deadline (a TLS socket keeps it on its own)."""
    length = response.getheader("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) > limits.max_bytes:
        raise TooLarge("its body is too large")
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            if time.monotonic() >= deadline:
                raise TimeoutError("the request's time is spent")
            chunk = response.read1(min(1024, limits.max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limits.max_bytes:
                raise TooLarge("its body is too large")
    except TimeoutError:
        raise Unreachable("it did not answer in time") from None
    except WireExceeded:
        raise TooLarge("its body is too large") from None
    except (OSError, http.client.HTTPException) as exc:
        raise Unreachable(f"the response broke off ({type(exc).__name__})") from None
    return b"".join(chunks)
