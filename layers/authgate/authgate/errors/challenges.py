"""WWW-Authenticate challenges, built here and nowhere else (RFC 9110 11.6.1 syntax).

Bearer (RFC 6750 3) on protected API routes, realm "api"; Basic (RFC 7617) for client
authentication at the OAuth endpoints, realm "oauth" (RFC 6749 5.2). A new scheme (DPoP,
RFC 9449 7.1) is one more function here. Auth-param values are quoted-strings (RFC 9110 5.6.4):
`\\` and `"` are escaped with a backslash and control characters are never emitted, so no
value can split or fold a header.
"""

from __future__ import annotations

from authgate.errors.description import oauth_description

API_REALM = "api"
OAUTH_REALM = "oauth"


def quoted_string(value: str) -> str:
    """RFC 9110 5.6.4 quoted-string: escape `\\` and `"`, drop control characters and non-ASCII."""
    cleaned = "".join(ch if " " <= ch <= "~" else " " for ch in value)
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _scope(scope: str) -> str:
    # RFC 6750 3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), space separated.
    tokens = ["".join(ch for ch in token if "!" <= ch <= "~" and ch not in '"\\') for token in scope.split()]
    return " ".join(t for t in tokens if t)


def bearer(realm: str = API_REALM, error: str | None = None, description: str | None = None,
           scope: str | None = None) -> str:
    """A Bearer challenge (RFC 6750 3); with no `error` when the request had no credentials (3.1)."""
    params = [f"realm={quoted_string(realm)}"]
    if error:
        params.append(f"error={quoted_string(error)}")
        if description:
            params.append(f"error_description={quoted_string(oauth_description(description))}")
    if scope:
        params.append(f"scope={quoted_string(_scope(scope))}")
    return "Bearer " + ", ".join(params)


def basic(realm: str = OAUTH_REALM) -> str:
    """A Basic challenge (RFC 7617 2) for client authentication at the token endpoint."""
    return f"Basic realm={quoted_string(realm)}"
