"""Grant types of the token endpoint (RFC 6749 §4), one module each, looked up by GRANT_TYPE.

An unknown grant type, or `password` on a deployment that has not enabled it, is
unsupported_grant_type (RFC 6749 §5.2).

Each grant's module is imported on its first request, not when the function loads: a cold
token function serving client_credentials does not build the code, refresh-token and user
stores it never touches (docs/decisions.md, measured shortcuts).
"""

from __future__ import annotations

import importlib

from authgate import grant_types
from authgate.errors import ApiError
from authgate.oauth.token.grants.base import Grant, TokenRequest, TokenResult

# grant_type -> (module under authgate.oauth.token.grants, class); the class's GRANT_TYPE is the key, and
# the keys are exactly authgate.grant_types.GRANT_TYPES.
GRANTS: dict[str, tuple[str, str]] = {
    grant_types.AUTHORIZATION_CODE: ("authorization_code", "AuthorizationCodeGrant"),
    grant_types.REFRESH_TOKEN: ("refresh_token", "RefreshTokenGrant"),
    grant_types.CLIENT_CREDENTIALS: ("client_credentials", "ClientCredentialsGrant"),
    grant_types.PASSWORD: ("password", "PasswordGrant"),
    grant_types.TOKEN_EXCHANGE: ("token_exchange", "TokenExchangeGrant"),
    grant_types.JWT_BEARER: ("jwt_bearer", "JwtBearerGrant"),
    grant_types.DEVICE_CODE: ("device_code", "DeviceCodeGrant"),
    grant_types.CIBA: ("ciba", "CibaGrant"),
}


def grant_class(grant_type: str) -> type[Grant]:
    """The Grant subclass of a known grant type (its module imported now if need be)."""
    module, name = GRANTS[grant_type]
    grant: type[Grant] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    return grant


def grant_for(grant_type: str) -> Grant:
    if grant_type not in grant_types.served():
        raise ApiError("unsupported_grant_type", "The grant type is not supported by this server.",
                       internal=f"grant_type {grant_type[:64]!r}")
    return grant_class(grant_type)()


__all__ = ["GRANTS", "Grant", "TokenRequest", "TokenResult", "grant_class", "grant_for"]
