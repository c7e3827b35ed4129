"""What a URI authgate accepts looks like (RFC 3986 2, RFC 6749 3.1.2): printable ASCII, valid percent-escapes.

The one syntax check of every absolute URI authgate takes from outside (a redirect URI, a metadata document's, an
identity provider's issuer), kept below every package that checks one.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# A URI as registered: printable ASCII only, no spaces, valid percent-escapes (RFC 3986 2.1).
_URI_CHARS = re.compile(r"[\x21-\x7E]{1,2000}")
BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def well_formed_uri(uri: str) -> bool:
    """An absolute URI without fragment, in printable ASCII with valid percent-escapes (RFC 6749 3.1.2).

    No backslash: RFC 3986 2 has none, and browsers read one as "/" (WHATWG URL, special
    schemes), so `http://evil.example\\@127.0.0.1/cb` is host 127.0.0.1 to urlsplit but
    evil.example to the browser that follows the redirect. Every redirect URI authgate accepts
    (registration, metadata documents, `authgate clients create`) passes here."""
    if not _URI_CHARS.fullmatch(uri) or BAD_PERCENT.search(uri) or "#" in uri or "\\" in uri:
        return False
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        return False
    return bool(parts.scheme) and bool(parts.netloc or parts.path)
