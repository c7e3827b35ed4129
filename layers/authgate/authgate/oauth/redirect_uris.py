"""What a redirect URI may be (RFC 6749 3.1.2; RFC 8252 7.1, 7.3; RFC 9700 2.1, 4.1.3).

Every URI authgate accepts as a redirect URI or sends a browser to (an authorization request's, a
registration's, a metadata document's, `authgate clients create`'s) passes the one syntax check
(authgate.uri_syntax, kept here under its names too); and the schemes a client that registered
itself may use.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from authgate.uri_syntax import BAD_PERCENT, well_formed_uri

__all__ = ["BAD_PERCENT", "is_loopback_uri", "redirect_scheme_allowed", "well_formed_uri"]


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
