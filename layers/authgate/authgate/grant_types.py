"""The grant types a stack serves (RFC 6749 4, RFC 8414 2 grant_types_supported), each named once.

Every reader takes them from here: the token endpoint's registry (oauth.token.grants.GRANTS, one
module per grant), the RFC 8414 metadata (oauth.discovery), what a self-registered client may
state (oauth.clients.stated_metadata: dynamic registration and metadata documents), the device and
CIBA records that name their grant, and the admin CLI's `--grant` choices; `authgate check` reads
the metadata the stack serves. A new grant type is a line of GRANT_TYPES and a module of the
registry (CONTRIBUTING.md, "A new grant type").
"""

from __future__ import annotations

from authgate.settings import get_settings

AUTHORIZATION_CODE = "authorization_code"
REFRESH_TOKEN = "refresh_token"
CLIENT_CREDENTIALS = "client_credentials"
# RFC 6749 4.3: off unless the deployment switches it on (template parameter PasswordGrantEnabled).
PASSWORD = "password"
# RFC 8693 2.1: token exchange, for registered resources' own credentials (docs/delegation.md).
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
# RFC 7523 2.1, with an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant; MCP Enterprise-Managed
# Authorization).
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
# RFC 8628 3.4: the device authorization grant (docs/delegation.md).
DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code"
# OpenID Connect CIBA Core 4, 10.1: the grant a backchannel request's poll uses (docs/ciba.md).
CIBA = "urn:openid:params:grant-type:ciba"

# Every grant type authgate implements, in the order the metadata lists them.
GRANT_TYPES = (AUTHORIZATION_CODE, REFRESH_TOKEN, CLIENT_CREDENTIALS, PASSWORD, TOKEN_EXCHANGE, JWT_BEARER,
               DEVICE_CODE, CIBA)
# What a client that registers itself may state (RFC 7591 2; the default is authorization_code alone).
SELF_REGISTERED = (AUTHORIZATION_CODE, REFRESH_TOKEN)


def served() -> list[str]:
    """The grant types this stack's token endpoint accepts: every one, the password grant only when enabled."""
    return [grant for grant in GRANT_TYPES if grant != PASSWORD or get_settings().password_grant]
