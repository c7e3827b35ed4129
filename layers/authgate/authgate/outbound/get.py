"""GET a document from a URL someone else chose (a SAML identity provider's metadata, docs/federation-saml.md).

Under every rule of authgate.outbound.connection (one resolution, every address checked, the
connection pinned to it, TLS verified, time and bytes bounded at the socket), with the URL rules
of authgate.outbound.post (https; http only to a loopback host when the local stack allows
loopback). Only a 200 is an answer: redirects are never followed. The body is read up to
`limits.max_bytes`; more is a failure, never a truncated document.
"""

from __future__ import annotations

import http.client
import ssl
import time
from typing import NamedTuple

from authgate.outbound.connection import Limits, Resolver, system_resolver
from authgate.outbound.post import Failed, exchange


class Document(NamedTuple):
    """A 200 answer: its body and its media type (lower case, parameters dropped)."""

    body: bytes
    media_type: str


def get(url: str, *, accept: str, limits: Limits, resolver: Resolver = system_resolver,
        allow_loopback: bool = False, context: ssl.SSLContext | None = None) -> Document:
    """GET `url` asking for `accept`; the Document, or Failed (`internal` says what happened, for logs)."""
    response, body = exchange(url, "GET", {"Accept": accept}, None, read=_body, resolver=resolver,
                              allow_loopback=allow_loopback, context=context, limits=limits)
    media = (response.getheader("Content-Type") or "").split(";", 1)[0].strip().lower()
    return Document(body, media)


def _body(response: http.client.HTTPResponse, limits: Limits, deadline: float) -> bytes:
    """A 200's body, at most `limits.max_bytes`, by the deadline (a declared larger length fails at once)."""
    if response.status != 200:
        raise Failed(f"it answered HTTP {response.status}, not 200", retry=response.status >= 500)
    length = response.getheader("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) > limits.max_bytes:
        raise Failed(f"its body is larger than {limits.max_bytes} bytes", retry=False)
    chunks: list[bytes] = []
    size = 0
    while time.monotonic() < deadline:
        chunk = response.read1(min(16 * 1024, limits.max_bytes + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limits.max_bytes:
            raise Failed(f"its body is larger than {limits.max_bytes} bytes", retry=False)
    raise TimeoutError("the request's time is spent")
