"""A SAML IdP's metadata fetched from the URL its administrator gives (`--metadata-url`).

Under authgate.outbound.exchange's rules (https, or http to loopback on the local stack only;
every address the host resolves to public; no redirect followed) within 256 KB and 10 s: only a
200 served as an XML media type is a document. Only the admin command fetches it: a sign-in
reads the record.
"""

from __future__ import annotations

import ssl

from authgate.federation.saml.metadata import MAX_BYTES, MetadataInvalid
from authgate.outbound.connection import Limits, Resolver, Unreachable, system_resolver
from authgate.outbound.exchange import BadUrl, TooLarge, exchange, target

FETCH_LIMITS = Limits(connect=3.0, read=5.0, total=10.0, max_bytes=MAX_BYTES)
ACCEPT = "application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.8"
USER_AGENT = "authgate (SAML metadata)"


def fetch(url: str, *, allow_loopback: bool = False, resolver: Resolver = system_resolver,
          context: ssl.SSLContext | None = None, limits: Limits = FETCH_LIMITS) -> bytes:
    """The metadata document at `url`; MetadataInvalid saying why there is none."""
    def refused(why: str) -> MetadataInvalid:
        return MetadataInvalid(f"the metadata at {url[:200]} could not be fetched: {why}")

    try:
        response = exchange("GET", target(url, allow_loopback=allow_loopback), headers={"Accept": ACCEPT},
                            user_agent=USER_AGENT, limits=limits, resolver=resolver, allow_loopback=allow_loopback,
                            context=context)
    except BadUrl as exc:
        raise refused(str(exc)) from None
    except TooLarge:
        raise refused(f"its body is larger than {limits.max_bytes} bytes") from None
    except Unreachable as exc:
        raise refused(exc.internal) from None
    if response.status != 200:
        raise refused(f"it answered HTTP {response.status}, not 200")
    media = response.header("Content-Type").split(";", 1)[0].strip().lower()
    if "xml" not in media:
        raise MetadataInvalid(f"the metadata at {url[:200]} is served as {media or 'no media type'}, not XML")
    return response.body
