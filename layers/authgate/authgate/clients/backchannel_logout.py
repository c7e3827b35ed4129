"""A client's back-channel logout registration (OpenID Connect Back-Channel Logout 1.0 2.2).

`backchannel_logout_uri`: an absolute https URL (query allowed, no fragment, no userinfo) that
authgate POSTs a logout token to; http only to a loopback host, and only on a stack that allows
loopback (the local stack's development exception, as for metadata documents).
`backchannel_logout_session_required`: the client wants `sid` in every logout token (authgate
always sends it when the sign-out ended a session, 2.4).
"""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_LENGTH = 500
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def uri_problem(uri: str, *, allow_loopback: bool) -> str:
    """Why `uri` cannot be a backchannel_logout_uri ("" when it can)."""
    if len(uri) > MAX_LENGTH:
        return f"backchannel_logout_uri is longer than {MAX_LENGTH} characters"
    if any(ord(c) <= 0x20 or ord(c) >= 0x7F or c == "\\" for c in uri):
        return "backchannel_logout_uri holds spaces, control, non-ASCII or backslash characters"
    parts = urlsplit(uri)
    try:
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return "backchannel_logout_uri has a malformed port"
    if "#" in uri:
        return "backchannel_logout_uri must not have a fragment (Back-Channel Logout 1.0 2.2)"
    if not parts.hostname or parts.username is not None or parts.password is not None:
        return "backchannel_logout_uri must be an absolute URL with a host and no user name or password"
    loopback = parts.hostname.lower() in _LOOPBACK_HOSTS
    if parts.scheme == "https" and (allow_loopback or not loopback):
        return ""
    if parts.scheme == "http" and loopback and allow_loopback:
        return ""
    if loopback:
        return "backchannel_logout_uri must not point at loopback on this stack"
    return "backchannel_logout_uri must be an https URL"
