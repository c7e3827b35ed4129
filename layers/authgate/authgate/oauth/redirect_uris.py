"""What a redirect URI may be (RFC 6749 3.1.2; RFC 8252 7.1, 7.3; RFC 9700 2.1, 4.1.3).

One syntax check for every URI authgate accepts as a redirect URI or sends a browser to (an
authorization request's, a registration's, a metadata document's, `authgate clients create`'s),
and the schemes a client that registered itself may use.
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


def is_loopback_uri(uri: str) -> bool:
    """An http URI on a loopback address (RFC 8252 7.3); `localhost` counts for the consent warning."""
    parts = urlsplit(uri)
    return parts.scheme in ("http", "https") and (parts.hostname or "") in ("127.0.0.1", "::1", "localhost")


def redirect_scheme_allowed(uri: str) -> bool:
    """https, http on a loopback address (RFC 8252 7.3, RFC 9700 2.1), or a native app's private-use
    scheme such as com.example.app (RFC 8252 7.1)."""
    scheme = urlsplit(uri).scheme.lower()
    if scheme == "https" or (scheme == "http" and is_loopback_uri(uri)):
        return True
    return scheme not in ("http", "javascript", "data", "file", "vbscript") and "." in scheme
