"""Grant types of the token endpoint (RFC 6749 §4), one module each, looked up by GRANT_TYPE.

An unknown grant type, or `password` on a deployment that has not enabled it, is
unsupported_grant_type (RFC 6749 §5.2).

Each grant's module is imported on its first request, not when the function loads: a cold
token function serving client_credentials does not build the code, refresh-token and user
stores it never touches (docs/decisions.md, measured shortcuts).
"""

from __future__ import annotations

import importlib

from authgate.errors import ApiError
from authgate.oauth.token.grants.base import Grant, TokenRequest, TokenResult
from authgate.settings import get_settings

# grant_type -> (module under authgate.oauth.token.grants, class); the class's GRANT_TYPE is the key.
GRANTS: dict[str, tuple[str, str]] = {
    "authorization_code": ("authorization_code", "AuthorizationCodeGrant"),
    "refresh_token": ("refresh_token", "RefreshTokenGrant"),
    "client_credentials": ("client_credentials", "ClientCredentialsGrant"),
    "password": ("password", "PasswordGrant"),
    "urn:ietf:params:oauth:grant-type:token-exchange": ("token_exchange", "TokenExchangeGrant"),
    "urn:ietf:params:oauth:grant-type:jwt-bearer": ("jwt_bearer", "JwtBearerGrant"),
    "urn:ietf:params:oauth:grant-type:device_code": ("device_code", "DeviceCodeGrant"),
    "urn:openid:params:grant-type:ciba": ("ciba", "CibaGrant"),
}


def supported_grant_types() -> list[str]:
    """What this deployment accepts (RFC 8414 grant_types_supported)."""
    return [name for name in GRANTS if name != "password" or get_settings().password_grant]


def grant_class(grant_type: str) -> type[Grant]:
    """The Grant subclass of a known grant type (its module imported now if need be)."""
    module, name = GRANTS[grant_type]
    grant: type[Grant] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    return grant


def grant_for(grant_type: str) -> Grant:
    if grant_type not in supported_grant_types():
        raise ApiError("unsupported_grant_type", "The grant type is not supported by this server.",
                       internal=f"grant_type {grant_type[:64]!r}")
    return grant_class(grant_type)()


__all__ = ["GRANTS", "Grant", "TokenRequest", "TokenResult", "grant_class", "grant_for", "supported_grant_types"]
