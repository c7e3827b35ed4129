"""Fetch a document from the hostile internet (draft-ietf-oauth-client-id-metadata-document-02 5, 8.6, 8.7).

1. The URL is a checked Client Identifier URL (client_id_url.parse): https, no userinfo.
2. The host is resolved once, every answer checked, the connection pinned to the checked
   address, TLS verified against the host name, time and bytes bounded at the socket: the rules
   of every outbound request (authgate.outbound.exchange).
3. One GET; any status but 200 is an error, redirects are never followed (5).
4. Content-Type must be application/json or application/<x>+json (4); the body is read up to
   `max_bytes` (5 KB, 8.7).

What the other server did is kept for logs (`internal`); the caller, who may be anyone, is told
only that the document could not be fetched, and authgate's own reason.
"""

from __future__ import annotations

import ssl
import time
from typing import TYPE_CHECKING, NamedTuple

from authgate.clients.errors import MetadataRefused
from authgate.oauth.clients.metadata_document.client_id_url import ClientIdUrl
from authgate.outbound.connection import (
    WIRE_BYTES,
    AddressRefused,
    Limits,
    Resolver,
    Unreachable,
    system_resolver,
)
from authgate.outbound.exchange import Target, TooLarge, exchange

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
        response = exchange("GET", Target(url.url, url.host, url.port, True, url.target), headers={"Accept": accept},
                            user_agent=USER_AGENT, limits=limits, resolver=resolver, allow_loopback=allow_loopback,
                            context=context, deadline=deadline)
    except AddressRefused as exc:
        raise not_fetched(url, exc.internal, "its host is not on an address authgate fetches from",
                          "client_metadata_address_refused") from None
    except TooLarge as exc:
        raise not_fetched(url, exc.internal, f"it is larger than {limits.max_bytes} bytes",
                          "client_metadata_too_large") from None
    except Unreachable as exc:
        raise not_fetched(url, exc.internal) from None
    if 300 <= response.status < 400:
        raise not_fetched(url, f"it answered HTTP {response.status}", "authgate does not follow redirects",
                          "client_metadata_redirected")
    if response.status != 200:
        raise not_fetched(url, f"it answered HTTP {response.status}, not 200")
    _check_content_type(url, response.header("Content-Type"))
    return Fetched(response.body, response.header("Cache-Control"), response.header("Expires"),
                   response.header("Date"), response.address)


def _check_content_type(url: ClientIdUrl, raw: str) -> None:
    media = raw.split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    if not (media == "application/json" or (kind == "application" and subtype.endswith("+json"))):
        raise MetadataRefused("client_metadata_invalid",
                              f"The client's metadata document at {url.url} must be served as application/json.",
                              internal=f"served as {media[:100] or 'no Content-Type'}")
