"""Fetch a document from the hostile internet (draft-ietf-oauth-client-id-metadata-document-02 5, 8.6, 8.7).

The standard library only (http.client, ssl, socket): what a Lambda function loads anyway for
botocore, so a cold start pays nothing more, and every step below stays in view -- a general
HTTP client (urllib3, httpx) resolves names and follows redirects itself, which is exactly
what must not happen here.

1. The URL is a checked Client Identifier URL (client_id_url.parse): https, no userinfo.
2. The host is resolved ONCE, by the injected resolver, within the fetch's time (on a thread
   waited for: getaddrinfo has no timeout of its own); every address it answers must pass
   `addresses.refusal` (any refused address refuses the fetch: a name that also points inside
   is hostile).
3. The connection goes to that checked address itself -- nothing resolves the name again, so
   DNS rebinding between check and connect is impossible -- and TLS is verified against the
   host name (SNI and certificate name check), with the default trust store (which honours
   SSL_CERT_FILE).
4. One GET; any status but 200 is an error, redirects are never followed (5).
5. Content-Type must be application/json or application/<x>+json (4); the body is read up to
   `max_bytes` (5 KB, 8.7).

Time and size are enforced at the socket (`BoundedSocket`): the TLS handshake, every write and
every read is given at most what is left of the fetch's time (and at most the per-read bound),
and at most WIRE_BYTES may arrive, headers included. http.client reads the status line and the
headers in many small reads: bounding each read on its own would let a server that drips a byte
at a time, or a chunked body a chunk at a time, hold the fetch -- and the Lambda function -- as
long as it likes. What the other server did is kept for logs (`internal`); the caller, who may
be anyone, is told only that the document could not be fetched, and authgate's own reason.
"""

from __future__ import annotations

import builtins
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from authgate.caches import cached
from authgate.oauth.client_metadata import addresses
from authgate.oauth.client_metadata.client_id_url import ClientIdUrl
from authgate.oauth.client_metadata.errors import MetadataRefused

if TYPE_CHECKING:
    from authgate.errors.codes import Code

# draft 8.7: "The recommended maximum size to read is 5 kilobytes."
MAX_BYTES = 5 * 1024
# All a fetch may receive: status line, headers, chunk framing and body.
WIRE_BYTES = 64 * 1024
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


class WireExceeded(OSError):
    """More than WIRE_BYTES arrived on one fetch's socket."""


class BoundedSocket(ssl.SSLSocket):
    """A TLS socket whose handshake, writes and reads all end by `deadline` (time.monotonic()).

    Each call is given the smaller of `per_call` and what is left, so however the peer paces its
    bytes, the calls together cannot pass the deadline; once it has passed, every call raises
    TimeoutError at once. The fetch's SSLContext makes these (`SSLContext.sslsocket_class`)."""

    deadline = 0.0
    per_call = 0.0
    received = 0

    def _bound(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the fetch's time is spent")
        self.settimeout(min(self.per_call, left))

    def do_handshake(self, block: bool = False) -> None:
        self._bound()
        super().do_handshake(block)

    def send(self, data: bytes | bytearray | memoryview, flags: int = 0) -> int:  # type: ignore[override]
        self._bound()
        return super().send(data, flags)

    def read(self, len: int = 1024, buffer: bytearray | memoryview | None = None) -> bytes:  # type: ignore[override]
        self._bound()
        got = super().read(len, buffer)
        # Given a buffer, SSLSocket.read answers the count it wrote there (typeshed says bytes).
        self.received += got if isinstance(got, int) else builtins.len(got)
        if self.received > WIRE_BYTES:
            raise WireExceeded(f"more than {WIRE_BYTES} bytes arrived")
        return got


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver answers for `host` (A and AAAA), in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def not_fetched(url: ClientIdUrl, internal: str, reason: str = "",
                code: Code = "client_metadata_unreachable") -> MetadataRefused:
    """The document could not be fetched: the caller sees the URL, the code and authgate's own
    `reason` (if any); what the other server or the network did goes to `internal` (logs)."""
    tail = f": {reason}" if reason else ""
    return MetadataRefused(code, f"The client's metadata document at {url.url} could not be fetched{tail}.",
                           internal=internal)


class _PinnedConnection(http.client.HTTPSConnection):
    """An HTTPS connection to one already-checked address, TLS verified against the URL's host,
    every byte of it within the fetch's deadline."""

    def __init__(self, url: ClientIdUrl, address: str, context: ssl.SSLContext, limits: Limits,
                 deadline: float) -> None:
        super().__init__(url.host, url.port, timeout=limits.connect, context=context)
        self._address = address
        self._context = context
        self._limits = limits
        self._deadline = deadline

    def connect(self) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the fetch's time is spent")
        sock = socket.create_connection((self._address, self.port), min(self._limits.connect, left))
        try:
            self._context.sslsocket_class = BoundedSocket
            # server_hostname gives SNI and the certificate's name check (check_hostname).
            tls = self._context.wrap_socket(sock, server_hostname=self.host, do_handshake_on_connect=False)
        except BaseException:
            sock.close()
            raise
        assert isinstance(tls, BoundedSocket)
        self.sock = tls
        tls.deadline, tls.per_call = self._deadline, self._limits.connect
        tls.do_handshake()
        tls.per_call = self._limits.read


def fetch(url: ClientIdUrl, *, resolver: Resolver = system_resolver, allow_loopback: bool = False,
          context: ssl.SSLContext | None = None, limits: Limits = DEFAULT_LIMITS,
          accept: str = "application/json", deadline: float | None = None) -> Fetched:
    """GET `url` under every rule above, by `deadline` (time.monotonic(); default: `limits.total`
    from now); MetadataRefused with the precise code when any rule fails."""
    if deadline is None:
        deadline = time.monotonic() + limits.total
    address = _checked_address(url, _resolved(url, resolver, deadline), allow_loopback)
    connection = _PinnedConnection(url, address, context or default_context(), limits, deadline)
    try:
        try:
            connection.connect()
            connection.putrequest("GET", url.target, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", url.authority)
            connection.putheader("Accept", accept)
            connection.putheader("User-Agent", USER_AGENT)
            connection.endheaders()
            response = connection.getresponse()
        except ssl.SSLError as exc:
            raise not_fetched(url, f"TLS failed ({exc.reason or type(exc).__name__})") from None
        except TimeoutError:
            raise not_fetched(url, "it did not answer in time") from None
        except WireExceeded:
            raise not_fetched(url, f"its headers passed {WIRE_BYTES} bytes", f"it is larger than "
                              f"{limits.max_bytes} bytes", "client_metadata_too_large") from None
        except (OSError, http.client.HTTPException) as exc:
            raise not_fetched(url, f"connection failed ({type(exc).__name__})") from None
        if 300 <= response.status < 400:
            raise not_fetched(url, f"it answered HTTP {response.status}", "authgate does not follow redirects",
                              "client_metadata_redirected")
        if response.status != 200:
            raise not_fetched(url, f"it answered HTTP {response.status}, not 200")
        _check_content_type(url, response.getheader("Content-Type") or "")
        body = _read(url, response, limits)
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
    context.sslsocket_class = BoundedSocket
    return context


def _resolved(url: ClientIdUrl, resolver: Resolver, deadline: float) -> list[str]:
    """The resolver's answers, waited for until the deadline at most (its thread is left to finish)."""
    answers: list[str] = []
    failure: list[BaseException] = []

    def resolve() -> None:
        try:
            answers.extend(resolver(url.host, url.port))
        except (OSError, UnicodeError) as exc:
            failure.append(exc)

    worker = threading.Thread(target=resolve, name="client-metadata-resolve", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise not_fetched(url, "its host did not resolve in time")
    if failure:
        raise not_fetched(url, f"its host does not resolve ({type(failure[0]).__name__})")
    if not answers:
        raise not_fetched(url, "its host does not resolve")
    return answers


def _checked_address(url: ClientIdUrl, answers: list[str], allow_loopback: bool) -> str:
    """Refuse unless every answer is an address we may fetch from (8.6); the first one otherwise."""
    for address in answers:
        why = addresses.refusal(address, allow_loopback=allow_loopback)
        if why:
            raise not_fetched(url, f"{url.host} -> {address} ({why})",
                              "its host is not on an address authgate fetches from",
                              "client_metadata_address_refused")
    return answers[0]


def _check_content_type(url: ClientIdUrl, raw: str) -> None:
    media = raw.split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    if not (media == "application/json" or (kind == "application" and subtype.endswith("+json"))):
        raise MetadataRefused("client_metadata_invalid",
                              f"The client's metadata document at {url.url} must be served as application/json.",
                              internal=f"served as {media[:100] or 'no Content-Type'}")


def _read(url: ClientIdUrl, response: http.client.HTTPResponse, limits: Limits) -> bytes:
    """The body, at most `limits.max_bytes` (the socket keeps the time)."""
    too_large = not_fetched(url, "its body is too large", f"it is larger than {limits.max_bytes} bytes",
                            "client_metadata_too_large")
    length = response.getheader("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) > limits.max_bytes:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            chunk = response.read1(min(1024, limits.max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limits.max_bytes:
                raise too_large
    except TimeoutError:
        raise not_fetched(url, "it did not answer in time") from None
    except WireExceeded:
        raise too_large from None
    except (OSError, http.client.HTTPException) as exc:
        raise not_fetched(url, f"the response broke off ({type(exc).__name__})") from None
    return b"".join(chunks)
