"""Fetch a document from the hostile internet (draft-ietf-oauth-client-id-metadata-document-02 5, 8.6, 8.7).

1. The URL is a checked Client Identifier URL (client_id_url.parse): https, no userinfo.
2. The host is resolved once, every answer checked, the connection pinned to the checked
   address, TLS verified against the host name, time and bytes bounded at the socket: the rules
   of every outbound request (authgate.outbound.connection).
3. One GET; any status but 200 is an error, redirects are never followed (5).
4. Content-Type must be application/json or application/<x>+json (4); the body is read up to
   `max_bytes` (5 KB, 8.7).

What the other server did is kept for logs (`internal`); the caller, who may be anyone, is told
only that the document could not be fetched, and authgate's own reason.
"""

from __future__ import annotations

import http.client
import ssl
import time
from typing import TYPE_CHECKING, NamedTuple

from authgate.clients.errors import MetadataRefused
from authgate.oauth.clients.metadata_document.client_id_url import ClientIdUrl
from authgate.outbound.connection import (
    WIRE_BYTES,
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

if TYPE_CHECKING:
    from authgate.errors.codes import Code

# draft 8.7: "The recommended maximum size to read is 5 kilobytes."
MAX_BYTES = 5 * 1024
USER_AGENT = "authgate (client metadata fetcher)"

DEFAULT_LIMITS = Limits(max_bytes=MAX_BYTES)
__all__ = ["DEFAULT_LIMITS", "WIRE_BYTES", "Fetched", "Limits", "Resolver", "fetch", "system_resolver"]


class Fetched(NamedTuple):
    """A 200 response's body and the headers the caller needs (caching, 5.2)."""

    body: bytes
    cache_control: str
    expires: str
    date: str
    address: str


def not_fetched(url: ClientIdUrl, internal: str, reason: str = "",
                code: Code = "client_metadata_unreachable") -> MetadataRefused:
    """The document could not be fetched: the caller sees the URL, the code and authgate's own
    `reason` (if any); what the other server or the network did goes to `internal` (logs)."""
    tail = f": {reason}" if reason else ""
    return MetadataRefused(code, f"The client's metadata document at {url.url} could not be fetched{tail}.",
                           internal=internal)


def fetch(url: ClientIdUrl, *, resolver: Resolver = system_resolver, allow_loopback: bool = False,
          context: ssl.SSLContext | None = None, limits: Limits = DEFAULT_LIMITS,
          accept: str = "application/json", deadline: float | None = None) -> Fetched:
    """GET `url` under every rule above, by `deadline` (time.monotonic(); default: `limits.total`
    from now); MetadataRefused with the precise code when any rule fails."""
    if deadline is None:
        deadline = time.monotonic() + limits.total
    try:
        address = pinned_address(url.host, url.port, resolver, deadline, allow_loopback)
    except AddressRefused as exc:
        raise not_fetched(url, exc.internal, "its host is not on an address authgate fetches from",
                          "client_metadata_address_refused") from None
    except Unreachable as exc:
        raise not_fetched(url, exc.internal) from None
    connection = PinnedConnection(url.host, url.port, address, context or default_context(), limits, deadline)
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
