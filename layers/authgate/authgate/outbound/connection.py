"""One HTTPS connection to a hostile host: resolved once, every address checked, pinned, bounded (draft-ietf-oauth-client-id-metadata-document-02 8.6).

The rules every request authgate makes to a URL someone else chose (a client's metadata
document, an identity provider's keys, a back-channel logout call) share:

1. The host is resolved ONCE, by the injected resolver, within the request's time (on a thread
   waited for: getaddrinfo has no timeout of its own); every address it answers must pass
   `addresses.refusal` (any refused address refuses the request: a name that also points
   inside is hostile).
2. The connection goes to that checked address itself -- nothing resolves the name again, so
   DNS rebinding between check and connect is impossible -- and TLS is verified against the
   host name (SNI and certificate name check), with the default trust store (which honours
   SSL_CERT_FILE).
3. Time and size are enforced at the socket (`BoundedSocket`): the TLS handshake, every write
   and every read is given at most what is left of the request's time (and at most the
   per-call bound), and at most WIRE_BYTES may arrive, headers included. http.client reads the
   status line and the headers in many small reads: bounding each read on its own would let a
   server that drips a byte at a time hold the request -- and the Lambda function -- as long as
   it likes.

The standard library only (http.client, ssl, socket): what a Lambda function loads anyway for
botocore, and a general HTTP client would resolve names and follow redirects itself, which is
exactly what must not happen here. Failures are `Unreachable` (with what the network did, for
logs) or `AddressRefused`; callers say what they mean to their own callers.
"""

from __future__ import annotations

import builtins
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from authgate.caches import cached
from authgate.outbound import addresses

# All one request may receive: status line, headers, chunk framing and body; a request allowed a
# larger body (a SAML IdP's metadata) may receive that body and HEADROOM more.
WIRE_BYTES = 64 * 1024
HEADROOM = 16 * 1024

Resolver = Callable[[str, int], Sequence[str]]


class Limits(NamedTuple):
    """Bounds of one request: seconds to connect, per read, in all; bytes of body."""

    connect: float = 2.0
    read: float = 2.0
    total: float = 4.0
    max_bytes: int = 5 * 1024


class Unreachable(Exception):
    """The host did not resolve in time, or not at all; `internal` says how (for logs only)."""

    def __init__(self, internal: str) -> None:
        super().__init__(internal)
        self.internal = internal


class AddressRefused(Unreachable):
    """The host resolves to an address authgate never connects to (addresses.refusal)."""


class WireExceeded(OSError):
    """More than WIRE_BYTES arrived on one request's socket."""


class BoundedSocket(ssl.SSLSocket):
    """A TLS socket whose handshake, writes and reads all end by `deadline` (time.monotonic()).

    Each call is given the smaller of `per_call` and what is left, so however the peer paces its
    bytes, the calls together cannot pass the deadline; once it has passed, every call raises
    TimeoutError at once. The request's SSLContext makes these (`SSLContext.sslsocket_class`)."""

    deadline = 0.0
    per_call = 0.0
    received = 0
    wire_bytes = WIRE_BYTES

    def _bound(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's time is spent")
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
        if self.received > self.wire_bytes:
            raise WireExceeded(f"more than {self.wire_bytes} bytes arrived")
        return got


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver answers for `host` (A and AAAA), in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@cached
def default_context() -> ssl.SSLContext:
    """Certificate and host name verified, TLS 1.2 at least; the default trust store (SSL_CERT_FILE honoured).

    Built once per container: loading the trust store costs milliseconds a request need not pay."""
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.sslsocket_class = BoundedSocket
    return context


class PinnedConnection(http.client.HTTPSConnection):
    """An HTTPS connection to one already-checked address, TLS verified against `host`,
    every byte of it within the request's deadline."""

    def __init__(self, host: str, port: int, address: str, context: ssl.SSLContext, limits: Limits,
                 deadline: float) -> None:
        super().__init__(host, port, timeout=limits.connect, context=context)
        self._address = address
        self._context = context
        self._limits = limits
        self._deadline = deadline

    def connect(self) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's time is spent")
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
        tls.wire_bytes = max(WIRE_BYTES, self._limits.max_bytes + HEADROOM)
        tls.do_handshake()
        tls.per_call = self._limits.read


def pinned_address(host: str, port: int, resolver: Resolver, deadline: float, allow_loopback: bool) -> str:
    """The address to connect to: the resolver's first answer, once every answer passed
    `addresses.refusal`; Unreachable or AddressRefused otherwise."""
    answers = _resolved(host, port, resolver, deadline)
    for address in answers:
        why = addresses.refusal(address, allow_loopback=allow_loopback)
        if why:
            raise AddressRefused(f"{host} -> {address} ({why})")
    return answers[0]


def _resolved(host: str, port: int, resolver: Resolver, deadline: float) -> list[str]:
    """The resolver's answers, waited for until the deadline at most (its thread is left to finish)."""
    answers: list[str] = []
    failure: list[BaseException] = []

    def resolve() -> None:
        try:
            answers.extend(resolver(host, port))
        except (OSError, UnicodeError) as exc:
            failure.append(exc)

    worker = threading.Thread(target=resolve, name="outbound-resolve", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise Unreachable("its host did not resolve in time")
    if failure:
        raise Unreachable(f"its host does not resolve ({type(failure[0]).__name__})")
    if not answers:
        raise Unreachable("its host does not resolve")
    return answers
