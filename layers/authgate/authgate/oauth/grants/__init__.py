"""Grant types of the token endpoint (RFC 6749 §4), one module each, looked up by GRANT_TYPE.

An unknown grant type, or `password` on a deployment that has not enabled it, is
unsupported_grant_type (RFC 6749 §5.2).
"""

from __future__ import annotations

from authgate.errors import ApiError
from authgate.oauth.grants.authorization_code import AuthorizationCodeGrant
from authgate.oauth.grants.base import Grant, TokenRequest, TokenResult
from authgate.oauth.grants.client_credentials import ClientCredentialsGrant
from authgate.oauth.grants.password import PasswordGrant
from authgate.oauth.grants.refresh_token import RefreshTokenGrant
from authgate.settings import get_settings

GRANTS: dict[str, type[Grant]] = {
    grant.GRANT_TYPE: grant
    for grant in (AuthorizationCodeGrant, RefreshTokenGrant, ClientCredentialsGrant, PasswordGrant)
}


def supported_grant_types() -> list[str]:
    """What this deployment accepts (RFC 8414 grant_types_supported)."""
    return [name for name in GRANTS if name != "password" or get_settings().password_grant]


def grant_for(grant_type: str) -> Grant:
    if grant_type not in supported_grant_types():
        raise ApiError("unsupported_grant_type", "The grant type is not supported by this server.",
                       internal=f"grant_type {grant_type[:64]!r}")
    return GRANTS[grant_type]()


__all__ = ["GRANTS", "Grant", "TokenRequest", "TokenResult", "grant_for", "supported_grant_types"]
