"""Fetch a document from the hostile internet (draft-ietf-oauth-client-id-metadata-document-02 5, 8.6, 8.7).

The standard library only (http.client, ssl, socket): what a Lambda function loads anyway for
botocore, so a cold start pays nothing more, and every step below stays in view -- a general
HTTP client (urllib3, httpx) resolves names and follows redirects itself, which is exactly
what must not happen here.

1. The URL is a checked Client Identifier URL (client_id_url.parse): https, no userinfo.
2. The host is resolved ONCE, by the injected resolver; every address it answers must pass
   `addresses.refusal` (any refused address refuses the fetch: a name that also points inside
   is hostile).
3. The connection goes to that checked address itself -- nothing resolves the name again, so
   DNS rebinding between check and connect is impossible -- and TLS is verified against the
   host name (SNI and certificate name check), with the default trust store (which honours
   SSL_CERT_FILE).
4. One GET; any status but 200 is an error, redirects are never followed (5).
5. Content-Type must be application/json or application/<x>+json (4); the body is read up to
   `max_bytes` (5 KB, 8.7) under connect, read and total deadlines.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from authgate.caches import cached
from authgate.oauth.client_metadata import addresses
from authgate.oauth.client_metadata.client_id_url import ClientIdUrl
from authgate.oauth.client_metadata.errors import MetadataRefused

# draft 8.7: "The recommended maximum size to read is 5 kilobytes."
MAX_BYTES = 5 * 1024
USER_AGENT = "authgate (client metadata fetcher)"

Resolver = Callable[[str, int], Sequence[str]]


class Limits(NamedTuple):
    """Bounds of one fetch: seconds to connect, per read, in all; bytes of body."""

    connect: float = 2.0
    read: float = 2.0
    total: float = 4.0
    max_bytes: int = MAX_BYTES


DEFAULT_LIMITS = Limits()


class Fetched(NamedTuple):
    """A 200 response's body and the headers the caller needs (caching, 5.2)."""

    body: bytes
    cache_control: str
    expires: str
    date: str
    address: str


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver answers for `host` (A and AAAA), in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _unreachable(url: ClientIdUrl, why: str) -> MetadataRefused:
    return MetadataRefused("client_metadata_unreachable",
                           f"The client's metadata document at {url.url} could not be fetched: {why}.", internal=why)


class _PinnedConnection(http.client.HTTPSConnection):
    """An HTTPS connection to one already-checked address, TLS verified against the URL's host."""

    def __init__(self, url: ClientIdUrl, address: str, context: ssl.SSLContext, timeout: float) -> None:
        super().__init__(url.host, url.port, timeout=timeout, context=context)
        self._address = address
        self._context = context

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        try:
            # server_hostname gives SNI and the certificate's name check (check_hostname).
            self.sock = self._context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def fetch(url: ClientIdUrl, *, resolver: Resolver = system_resolver, allow_loopback: bool = False,
          context: ssl.SSLContext | None = None, limits: Limits = DEFAULT_LIMITS,
          accept: str = "application/json") -> Fetched:
    """GET `url` under every rule above; MetadataRefused with the precise code when any fails."""
    deadline = time.monotonic() + limits.total
    address = _checked_address(url, resolver, allow_loopback)
    context = context or default_context()
    connection = _PinnedConnection(url, address, context, min(limits.connect, limits.total))
    try:
        try:
            connection.connect()
            _timeout(connection, deadline, limits.read)
            connection.putrequest("GET", url.target, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", url.authority)
            connection.putheader("Accept", accept)
            connection.putheader("User-Agent", USER_AGENT)
            connection.endheaders()
            response = connection.getresponse()
        except ssl.SSLError as exc:
            raise _unreachable(url, f"TLS failed ({exc.reason or type(exc).__name__})") from None
        except TimeoutError:
            raise _unreachable(url, "it did not answer in time") from None
        except (OSError, http.client.HTTPException) as exc:
            raise _unreachable(url, f"connection failed ({type(exc).__name__})") from None
        if 300 <= response.status < 400:
            raise MetadataRefused("client_metadata_redirected",
                                  f"The client's metadata document at {url.url} answered a redirect "
                                  f"({response.status}); redirects are not followed.")
        if response.status != 200:
            raise _unreachable(url, f"it answered HTTP {response.status}, not 200")
        _check_content_type(url, response.getheader("Content-Type") or "")
        body = _read(url, connection, response, deadline, limits)
        return Fetched(body, response.getheader("Cache-Control") or "", response.getheader("Expires") or "",
                       response.getheader("Date") or "", address)
    finally:
        connection.close()


@cached
def default_context() -> ssl.SSLContext:
    """Certificate and host name verified, TLS 1.2 at least; the default trust store (SSL_CERT_FILE honoured).

    Built once per container: loading the trust store costs milliseconds a fetch need not pay."""
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def _checked_address(url: ClientIdUrl, resolver: Resolver, allow_loopback: bool) -> str:
    """Resolve once and refuse unless every answer is an address we may fetch from (8.6)."""
    try:
        answers = list(resolver(url.host, url.port))
    except (OSError, UnicodeError) as exc:
        raise _unreachable(url, f"its host does not resolve ({type(exc).__name__})") from None
    if not answers:
        raise _unreachable(url, "its host does not resolve")
    for address in answers:
        why = addresses.refusal(address, allow_loopback=allow_loopback)
        if why:
            raise MetadataRefused("client_metadata_address_refused",
                                  f"The client's metadata document host {url.host} resolves to an address "
                                  f"authgate does not fetch from ({why}).", internal=f"{url.host} -> {address}")
    return answers[0]


def _check_content_type(url: ClientIdUrl, raw: str) -> None:
    media = raw.split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    if not (media == "application/json" or (kind == "application" and subtype.endswith("+json"))):
        raise MetadataRefused("client_metadata_invalid",
                              f"The client's metadata document at {url.url} must be served as application/json, "
                              f"not {media or 'without a Content-Type'}.")


def _timeout(connection: http.client.HTTPConnection, deadline: float, per_read: float) -> float:
    """Set the socket's timeout to the shorter of the per-read bound and what is left of the total."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    if connection.sock is not None:
        connection.sock.settimeout(min(per_read, left))
    return left


def _read(url: ClientIdUrl, connection: http.client.HTTPConnection, response: http.client.HTTPResponse,
          deadline: float, limits: Limits) -> bytes:
    """The body, at most `limits.max_bytes`, read under the deadlines (a slow drip is cut off)."""
    def too_large() -> MetadataRefused:
        return MetadataRefused("client_metadata_too_large",
                               f"The client's metadata document at {url.url} is larger than "
                               f"{limits.max_bytes} bytes.")

    length = response.getheader("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) > limits.max_bytes:
        raise too_large()
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            _timeout(connection, deadline, limits.read)
            chunk = response.read1(min(1024, limits.max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limits.max_bytes:
                raise too_large()
    except TimeoutError:
        raise _unreachable(url, "it did not answer in time") from None
    except (OSError, http.client.HTTPException) as exc:
        raise _unreachable(url, f"the response broke off ({type(exc).__name__})") from None
    return b"".join(chunks)
