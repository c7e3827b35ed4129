"""A SAML IdP's metadata fetched from the URL its administrator gives (`--metadata-url`).

Under authgate.outbound's rules (https, or http to loopback on the local stack only; every
address the host resolves to public; no redirect followed) within 256 KB and 10 s, served as an
XML media type. Only the admin command fetches it: a sign-in reads the record.
"""

from __future__ import annotations

import ssl

from authgate.federation.saml.metadata import MAX_BYTES, MetadataInvalid
from authgate.outbound.connection import Limits, Resolver, system_resolver
from authgate.outbound.get import get
from authgate.outbound.post import Failed

FETCH_LIMITS = Limits(connect=3.0, read=5.0, total=10.0, max_bytes=MAX_BYTES)
ACCEPT = "application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.8"


def fetch(url: str, *, allow_loopback: bool = False, resolver: Resolver = system_resolver,
          context: ssl.SSLContext | None = None, limits: Limits = FETCH_LIMITS) -> bytes:
    """The metadata document at `url`, under authgate.outbound's rules; MetadataInvalid saying why not."""
    try:
        got = get(url, accept=ACCEPT, limits=limits, resolver=resolver, allow_loopback=allow_loopback,
                  context=context)
    except Failed as failed:
        raise MetadataInvalid(f"the metadata at {url[:200]} could not be fetched: {failed.internal}") from None
    if "xml" not in got.media_type:
        raise MetadataInvalid(f"the metadata at {url[:200]} is served as {got.media_type or 'no media type'}, not XML")
    return got.body
