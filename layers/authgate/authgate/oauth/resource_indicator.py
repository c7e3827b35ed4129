"""Resource indicators (RFC 8707): the `resource` parameter names the API a token is for.

authgate protects one resource, the charges API, whose identifier is `<issuer>/charges` (the
`aud` every access token already carried, tokens.jwt_profile.default_audience). So a request may
name that resource, or none (the token is then for it anyway); anything else is invalid_target
(RFC 8707 2): not an absolute URI, a URI with a fragment, more than one value (one resource per
token), or a resource this server does not issue tokens for.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from authgate.errors import ApiError
from authgate.tokens.jwt_profile import default_audience


def requested_resource(values: list[str], issuer: str) -> str | None:
    """The resource a request names (None for none), or invalid_target (RFC 8707 2)."""
    values = [v for v in values if v != ""]
    if not values:
        return None
    if len(values) > 1:
        raise ApiError("invalid_target", "Name one resource per request; this server protects only "
                                         f"{default_audience(issuer)}.")
    value = values[0]
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if parts is None or not parts.scheme or not parts.netloc or "#" in value:
        raise ApiError("invalid_target", "The resource parameter must be an absolute URI without a fragment "
                                         "(RFC 8707 2).")
    if value.rstrip("/") != default_audience(issuer):
        raise ApiError("invalid_target", f"The resource {value[:200]} is unknown; this server protects only "
                                         f"{default_audience(issuer)}.")
    return default_audience(issuer)
