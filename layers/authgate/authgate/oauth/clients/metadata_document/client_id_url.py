"""The Client Identifier URL (draft-ietf-oauth-client-id-metadata-document-02 section 3).

https only; no userinfo, no fragment, no single- or double-dot path segment; a path is
required; a port is allowed. Compared as strings, never normalised (3, RFC 3986 6.2.1). The
host is kept as written (ASCII only: an internationalised name must arrive in its A-label form).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import NamedTuple

from authgate.clients.errors import MetadataRefused
from authgate.oauth.redirect_uris import BAD_PERCENT

PREFIX = "https://"
# What a client_id may hold anywhere in authgate (authorize_request._VSCHAR bounds it to 200).
MAX_LENGTH = 200
_HOSTNAME = re.compile(r"(?=.{1,253}\Z)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*"
                       r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?")
_DOT_SEGMENT = re.compile(r"(?i)^(\.|%2e){1,2}$")


class ClientIdUrl(NamedTuple):
    """A checked Client Identifier URL, split for the fetch."""

    url: str
    host: str  # a DNS name, or an IP literal without brackets
    port: int
    target: str  # path and query, as sent in the request line

    @property
    def authority(self) -> str:
        """The Host header (RFC 9110 7.2): the host as written, with the port when not 443."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == 443 else f"{host}:{self.port}"


def is_client_id_url(client_id: str) -> bool:
    """Whether a client_id is to be resolved as a metadata document (it starts with https://, 7)."""
    return client_id[:8].lower() == PREFIX


def parse(url: str) -> ClientIdUrl:
    """Check `url` against section 3 and split it; MetadataRefused(client_metadata_url_invalid) otherwise."""
    def refuse(why: str) -> MetadataRefused:
        return MetadataRefused("client_metadata_url_invalid",
                               f"The client_id is not a valid Client Identifier URL: {why}.")

    if len(url) > MAX_LENGTH:
        raise refuse(f"longer than {MAX_LENGTH} characters")
    if any(ord(c) <= 0x20 or ord(c) >= 0x7F or c == "\\" for c in url):
        raise refuse("it holds spaces, control, non-ASCII or backslash characters")
    if not url.startswith(PREFIX):
        raise refuse("it must start with https://")  # also refuses HTTPS:// (no normalisation)
    if "#" in url:
        raise refuse("it must not have a fragment")
    if BAD_PERCENT.search(url):
        raise refuse("it holds a malformed percent-escape")
    rest = url[len(PREFIX):]
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, target = rest[:cut], rest[cut:]
    if "@" in authority:
        raise refuse("it must not carry a user name or password")
    if not target.startswith("/"):
        raise refuse("it must have a path")
    path = target.split("?", 1)[0]
    if any(_DOT_SEGMENT.match(segment) for segment in path.split("/")):
        raise refuse("its path must not have . or .. segments")
    host, port = _authority(authority, refuse)
    return ClientIdUrl(url, host, port, target)


def _authority(authority: str, refuse: Callable[[str], MetadataRefused]) -> tuple[str, int]:
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            raise refuse("its IPv6 address is not closed")
        host, tail = authority[1:end], authority[end + 1:]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise refuse("its IPv6 address is malformed") from None
    else:
        host, _, port_text = authority.partition(":")
        tail = f":{port_text}" if port_text or authority.endswith(":") else ""
        if not _HOSTNAME.fullmatch(host):
            raise refuse("its host is not a DNS name or an IP address")
    port = 443
    if tail:
        if not tail.startswith(":") or not tail[1:].isdigit() or not 0 < int(tail[1:]) < 65536:
            raise refuse("its port is malformed")
        port = int(tail[1:])
    return host.rstrip(".").lower(), port
