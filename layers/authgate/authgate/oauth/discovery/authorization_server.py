"""GET /.well-known/oauth-authorization-server (RFC 8414 §2, §3) and /.well-known/openid-configuration
(OpenID Connect Discovery 1.0 §3, §4): one metadata document, rendered at both.

RFC 8414 §2 registers the OpenID Provider metadata names for the OAuth document too, so the two
are the same object from one function: a field can never be in one and missing from the other.

Served by the jwks function, whose cold start must stay lean: nothing here imports jwt,
cryptography or the grant modules (the grant types are authgate.grant_types', the acr values
authgate.assurance's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate import grant_types
from authgate.assurance import ACR_VALUES
from authgate.authorization_details.charge import TYPE as CHARGE_TYPE
from authgate.clients.model import AUTH_METHODS as CLIENT_AUTH_METHODS
from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.issuer import base_url
from authgate.oauth.scopes import IDENTITY_SCOPES, KNOWN_SCOPES
from authgate.settings import get_settings
from authgate.tokens.jwt_profile import DPOP_ALGORITHMS

if TYPE_CHECKING:
    from authgate.http.request import Request

AUTH_METHODS = list(CLIENT_AUTH_METHODS)
# private_key_jwt assertions (authgate.oauth.token.client_assertion; FAPI 2.0 5.4): spelled out so this
# module imports no token code; a test keeps it equal to client_assertion.ALGORITHMS.
ASSERTION_ALGORITHMS = ["ES256", "PS256", "EdDSA", "Ed25519"]
MAX_AGE = 3600
# OpenID Connect Discovery 3: what the ID token (oauth.token.id_token) and userinfo (oauth.userinfo) state.
CLAIMS_SUPPORTED = ("iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "sid", "at_hash",
                    "name", "preferred_username", "updated_at", "email", "email_verified")
# Spelled out so this module imports no authorization code; a test keeps it equal to
# oauth.authorization.openid_request's.
PROMPT_VALUES = ("none", "login", "consent")
# draft-ietf-oauth-identity-assertion-authz-grant: ID-JAGs are presented with the jwt-bearer grant.
GRANT_PROFILES = ["urn:ietf:params:oauth:grant-profile:id-jag"]


def metadata(issuer: str) -> dict[str, Any]:
    doc = _metadata(issuer)
    if get_settings().dynamic_registration:
        doc["registration_endpoint"] = f"{issuer}/oauth/register"  # RFC 8414 2, RFC 7591 3
    return doc


def _metadata(issuer: str) -> dict[str, Any]:
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/oauth/authorize",
        "token_endpoint": f"{issuer}/oauth/token",
        "jwks_uri": f"{issuer}/.well-known/jwks.json",
        "revocation_endpoint": f"{issuer}/oauth/revoke",
        "introspection_endpoint": f"{issuer}/oauth/introspect",
        "userinfo_endpoint": f"{issuer}/oauth/userinfo",
        # OpenID Connect RP-Initiated Logout 1.0 2.1.
        "end_session_endpoint": f"{issuer}/oauth/logout",
        # offline_access is supported but not advertised (OIDC Discovery 3 allows it): MCP clients ask for
        # every advertised offline_access, and most of them are not registered for it (docs/oidc.md).
        "scopes_supported": [*KNOWN_SCOPES, *(s for s in IDENTITY_SCOPES if s != "offline_access")],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": grant_types.served(),
        # draft-ietf-oauth-identity-assertion-authz-grant: ID-JAGs are accepted at the token endpoint.
        "authorization_grant_profiles_supported": GRANT_PROFILES,
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": AUTH_METHODS,
        "token_endpoint_auth_signing_alg_values_supported": ASSERTION_ALGORITHMS,
        # RFC 9126 5: where to push, and whether every client must.
        "pushed_authorization_request_endpoint": f"{issuer}/oauth/par",
        # RFC 8628 4: where a device starts its authorization.
        "device_authorization_endpoint": f"{issuer}/oauth/device_authorization",
        "require_pushed_authorization_requests": get_settings().require_par,
        # OpenID Connect CIBA Core 4: poll mode only, no user_code, no signed requests.
        "backchannel_authentication_endpoint": f"{issuer}/oauth/backchannel",
        "backchannel_token_delivery_modes_supported": ["poll"],
        "backchannel_user_code_parameter_supported": False,
        "request_parameter_supported": False,
        # OpenID Connect Discovery 3: a request_uri is only ever a pushed request's (RFC 9126), never a
        # request object by reference (OIDC Core 6.2).
        "request_uri_parameter_supported": False,
        "subject_types_supported": ["public"],
        # The current signing key's algorithm (tokens.rotation); RS256 by default.
        # OIDC Discovery 1.0 3: RS256 MUST be included; first, as the default (Registration 2).
        "id_token_signing_alg_values_supported": list(get_settings().id_token_algs),
        "claims_supported": list(CLAIMS_SUPPORTED),
        "claim_types_supported": ["normal"],
        "claims_parameter_supported": True,
        "acr_values_supported": list(ACR_VALUES),
        "prompt_values_supported": list(PROMPT_VALUES),
        "frontchannel_logout_supported": False,
        # OpenID Connect Back-Channel Logout 1.0 2.1: logout tokens, with sid (authgate.deliveries).
        "backchannel_logout_supported": True,
        "backchannel_logout_session_supported": True,
        "revocation_endpoint_auth_methods_supported": AUTH_METHODS,
        "introspection_endpoint_auth_methods_supported": AUTH_METHODS,
        "revocation_endpoint_auth_signing_alg_values_supported": ASSERTION_ALGORITHMS,
        "introspection_endpoint_auth_signing_alg_values_supported": ASSERTION_ALGORITHMS,
        # RFC 9207: every authorization response carries `iss`.
        "authorization_response_iss_parameter_supported": True,
        "service_documentation": f"{issuer}/openapi.json",
        # RFC 9449 5.1: DPoP proofs at the token endpoint, and the algorithms they may use.
        "dpop_signing_alg_values_supported": list(DPOP_ALGORITHMS),
        # draft-ietf-oauth-client-id-metadata-document-02 6: an https client_id is fetched.
        "client_id_metadata_document_supported": get_settings().client_metadata_documents,
        # RFC 9396 10: the type every tenant and client may use. A registered resource's own types hold
        # for that resource only; its RFC 9728 document lists them (docs/payments-consent.md).
        "authorization_details_types_supported": [CHARGE_TYPE],
    }


def get_metadata(request: Request) -> Response:
    issuer = base_url(request)
    if not issuer:
        raise ApiError("internal_error", "The issuer is not configured.", internal="no issuer and no API context")
    return Response.json(200, metadata(issuer), headers={"Cache-Control": f"public, max-age={MAX_AGE}"})
