"""The OpenAPI operations of the OAuth endpoints a client calls (surface `oauth`): token (RFC 6749 3.2),
pushed requests (RFC 9126), device authorization (RFC 8628 3.1), backchannel authentication (OpenID
Connect CIBA Core 7), revocation (RFC 7009), introspection (RFC 7662), registration (RFC 7591, 7592), and an
upstream identity provider's back-channel logout (OpenID Connect Back-Channel Logout 1.0)."""

from __future__ import annotations

from typing import Any

from authgate.grant_types import GRANT_TYPES
from authgate_cli.openapi.operations.components import (
    FORM,
    NO_STORE_HEADERS,
    STR,
    cors_options,
    json_response,
    ref,
)

_CLIENT_AUTH_FORM = {
    "client_id": {"type": "string", "description": "client_secret_post or a public client (none)."},
    "client_secret": {"type": "string", "description": "client_secret_post; never together with Basic."},
    "client_assertion_type": {"type": "string", "enum": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
                              "description": "private_key_jwt (RFC 7523 2.2)."},
    "client_assertion": {"type": "string", "description": "private_key_jwt: a JWT signed by a registered key, "
                                                          "aud = the issuer identifier."},
}
_TOKEN_FORM = {"type": "object", "required": ["grant_type"], "properties": {
    "grant_type": {"type": "string", "enum": list(GRANT_TYPES)},
    "device_code": {"type": "string", "description": "The device authorization grant (RFC 8628 3.4): the "
                                                     "device_code of /oauth/device_authorization."},
    "auth_req_id": {"type": "string", "description": "The CIBA grant (OpenID Connect CIBA Core 10.1): the "
                                                     "backchannel request's identifier."},
    "assertion": {"type": "string", "description": "jwt-bearer (RFC 7523 2.1): an ID-JAG of an identity provider "
                                                   "the client's tenant trusts."},
    "code": STR, "redirect_uri": STR, "code_verifier": STR, "refresh_token": STR, "scope": STR,
    "username": STR, "password": STR,
    "subject_token": {"type": "string", "description": "Token exchange (RFC 8693 2.1): an access token whose aud is "
                                                       "the resource whose credentials authenticate."},
    "subject_token_type": {"type": "string", "enum": ["urn:ietf:params:oauth:token-type:access_token"]},
    "actor_token": STR, "actor_token_type": {"type": "string", "enum": ["urn:ietf:params:oauth:token-type:access_token"]},
    "requested_token_type": {"type": "string", "enum": ["urn:ietf:params:oauth:token-type:access_token"]},
    "audience": {"type": "string", "description": "Token exchange (RFC 8693 2.1): the target, as resource."},
    "resource": {"type": "string", "description": "RFC 8707: the API the token is for, once: <issuer>/charges "
                                                  "(the default) or a registered resource (`authgate resources`)."},
    "authorization_details": {"type": "string", "description": "RFC 9396 6.2: JSON, a subset of the grant's "
                                                               "authorization_details."},
    **_CLIENT_AUTH_FORM}}
_TOKEN_ONLY_FORM = {"type": "object", "required": ["token"], "properties": {
    "token": STR, "token_type_hint": {"type": "string", "enum": ["access_token", "refresh_token"]},
    **_CLIENT_AUTH_FORM}}
_OAUTH_CODES = ("invalid_request", "invalid_client", "service_unavailable")
_PAR_FORM = {"type": "object", "required": ["client_id", "response_type"], "properties": {
    "client_id": STR, "response_type": {"type": "string", "enum": ["code"]}, "redirect_uri": STR,
    "scope": STR, "state": STR, "code_challenge": STR, "code_challenge_method": {"type": "string", "enum": ["S256"]},
    "resource": STR, "dpop_jkt": STR, "authorization_details": STR, **_CLIENT_AUTH_FORM}}
_BACKCHANNEL_FORM = {"type": "object", "required": ["scope"], "properties": {
    "scope": {"type": "string", "description": "With openid (OpenID Connect CIBA Core 7.1)."},
    "login_hint": {"type": "string", "description": "A username of the client's tenant, or an email it knows."},
    "id_token_hint": {"type": "string", "description": "An ID token issued to this client."},
    "binding_message": {"type": "string", "maxLength": 100}, "requested_expiry": STR, "acr_values": STR,
    "resource": STR, **_CLIENT_AUTH_FORM}}
_BACKCHANNEL_RESPONSE = {"type": "object", "required": ["auth_req_id", "expires_in", "interval"], "properties": {
    "auth_req_id": STR, "expires_in": {"type": "integer", "maximum": 600}, "interval": {"type": "integer"}}}
_PAR_RESPONSE = {"type": "object", "required": ["request_uri", "expires_in"], "properties": {
    "request_uri": {"type": "string", "pattern": "^urn:ietf:params:oauth:request_uri:"},
    "expires_in": {"type": "integer", "maximum": 60}}}
_DEVICE_FORM = {"type": "object", "properties": {"client_id": STR, "scope": STR, "resource": STR,
                                                  **_CLIENT_AUTH_FORM}}
_DEVICE_RESPONSE = {"type": "object", "required": ["device_code", "user_code", "verification_uri",
                                                   "verification_uri_complete", "expires_in", "interval"],
                    "properties": {"device_code": STR, "user_code": {"type": "string",
                                                                     "pattern": "^[BCDFGHJKLMNPQRSTVWXZ]{5}-[BCDFGHJKLMNPQRSTVWXZ]{5}$"},
                                   "verification_uri": STR, "verification_uri_complete": STR,
                                   "expires_in": {"type": "integer"}, "interval": {"type": "integer"}}}

OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("/oauth/token", "POST"): {
        "summary": "Token endpoint (RFC 6749 3.2): authorization_code + PKCE, refresh_token, client_credentials, "
                   "token exchange (RFC 8693), ID-JAG (RFC 7523 jwt-bearer), device_code (RFC 8628)",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {FORM: {"schema": _TOKEN_FORM}}},
        "codes": _OAUTH_CODES + ("invalid_grant", "unauthorized_client", "unsupported_grant_type",
                                 "invalid_scope", "unsupported_media_type", "invalid_dpop_proof", "use_dpop_nonce",
                                 "invalid_target", "unknown_resource", "resource_not_allowed",
                                 "subject_token_invalid", "actor_token_invalid", "delegation_not_allowed",
                                 "delegation_too_deep", "id_jag_malformed", "id_jag_type_invalid",
                                 "id_jag_issuer_untrusted", "id_jag_keys_unavailable", "id_jag_signature_invalid",
                                 "id_jag_audience_invalid", "id_jag_client_mismatch", "id_jag_expired",
                                 "id_jag_time_invalid", "id_jag_replayed", "id_jag_resource_invalid",
                                 "id_jag_user_unknown", "authorization_pending", "slow_down", "expired_token",
                                 "device_access_denied", "invalid_authorization_details", "access_denied"),
        "parameters": [{"name": "DPoP", "in": "header", "required": False, "schema": STR,
                        "description": "A DPoP proof (RFC 9449 4): the token is then DPoP-bound."}],
        "responses": {"200": json_response(ref("TokenResponse"), "Token response.", headers=NO_STORE_HEADERS)},
    },
    ("/oauth/par", "POST"): {
        "summary": "Pushed authorization request (RFC 9126): the authorization request, checked now; "
                   "answers a one-time request_uri for /oauth/authorize",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {FORM: {"schema": _PAR_FORM}}},
        "codes": _OAUTH_CODES + ("unauthorized_client", "invalid_scope", "unsupported_media_type", "invalid_target",
                                 "unknown_resource", "resource_not_allowed", "invalid_authorization_details"),
        "responses": {"201": json_response(_PAR_RESPONSE, "The request_uri and its lifetime in seconds.",
                                           headers=NO_STORE_HEADERS)},
    },
    ("/oauth/device_authorization", "POST"): {
        "summary": "Device authorization request (RFC 8628 3.1): a device code to poll the token endpoint with, "
                   "and a user code for the person to enter on the verification page",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {FORM: {"schema": _DEVICE_FORM}}},
        "codes": _OAUTH_CODES + ("unauthorized_client", "invalid_scope", "unsupported_media_type",
                                 "invalid_target", "unknown_resource", "resource_not_allowed"),
        "responses": {"200": json_response(_DEVICE_RESPONSE, "The device authorization response (RFC 8628 3.2).",
                                           headers=NO_STORE_HEADERS)},
    },
    ("/oauth/backchannel", "POST"): {
        "summary": "Backchannel authentication request (OpenID Connect CIBA Core 1.0 7, poll mode): a person is asked "
                   "to approve; poll /oauth/token with the auth_req_id",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {FORM: {"schema": _BACKCHANNEL_FORM}}},
        "codes": _OAUTH_CODES + ("unauthorized_client", "invalid_scope", "unsupported_media_type", "invalid_target",
                                 "unknown_resource", "resource_not_allowed", "invalid_binding_message",
                                 "login_hint_token_not_supported", "access_denied"),
        "responses": {"200": json_response(_BACKCHANNEL_RESPONSE,
                                           "The auth_req_id, its lifetime and the polling interval.",
                                           headers=NO_STORE_HEADERS)},
    },
    ("/oauth/revoke", "POST"): {
        "summary": "Token revocation (RFC 7009)", "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {FORM: {"schema": _TOKEN_ONLY_FORM}}},
        "codes": _OAUTH_CODES + ("unsupported_media_type",),
        "responses": {"200": json_response({"type": "object"}, "Revoked, or the token was unknown (RFC 7009 2.2).")},
    },
    ("/oauth/introspect", "POST"): {
        "summary": "Token introspection (RFC 7662)", "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {FORM: {"schema": _TOKEN_ONLY_FORM}}},
        "codes": _OAUTH_CODES + ("unsupported_media_type",),
        "responses": {"200": json_response(ref("Introspection"), "Introspection response.")},
    },
    ("/oauth/federation/{tenant}/{idp_id}/backchannel-logout", "POST"): {
        "summary": "An upstream OpenID Provider's back-channel logout (OpenID Connect Back-Channel Logout 1.0 2.5): "
                   "ends the sessions its sign-in opened (the backchannel_logout_uri registered there)",
        "surface": "oauth", "security": [{}],
        "parameters": [{"name": "tenant", "in": "path", "required": True, "schema": STR},
                       {"name": "idp_id", "in": "path", "required": True, "schema": STR}],
        "requestBody": {"required": True, "content": {FORM: {"schema": {
            "type": "object", "required": ["logout_token"], "properties": {"logout_token": {
                "type": "string", "description": "A logout token the identity provider signed (2.4)."}}}}}},
        "codes": ("invalid_request", "service_unavailable"),
        "responses": {"200": {"description": "Validated; the sessions it names (if any) ended (2.8). Empty body.",
                              "headers": NO_STORE_HEADERS}},
    },
    ("/oauth/register", "POST"): {
        "summary": "Dynamic client registration (RFC 7591 3)", "surface": "oauth", "security": [{}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": ref("ClientMetadata")}}},
        "codes": ("invalid_client_metadata", "invalid_redirect_uri", "registration_not_enabled",
                  "registration_pool_full", "registration_rate_limited", "unsupported_media_type"),
        "responses": {"201": json_response(ref("ClientInformation"), "The registered client and its registration "
                                           "access token (shown once).", headers=NO_STORE_HEADERS)},
    },
    ("/oauth/register/{client_id}", "GET"): {
        "summary": "Read a client's registration (RFC 7592 2.1)", "surface": "oauth", "security": [{"bearer": []}],
        "parameters": [{"name": "client_id", "in": "path", "required": True, "schema": STR}],
        "codes": ("invalid_registration_token", "registration_not_enabled"),
        "responses": {"200": json_response(ref("ClientInformation"), "The registration.", headers=NO_STORE_HEADERS)},
    },
    ("/oauth/register/{client_id}", "PUT"): {
        "summary": "Replace a client's metadata (RFC 7592 2.2)", "surface": "oauth", "security": [{"bearer": []}],
        "parameters": [{"name": "client_id", "in": "path", "required": True, "schema": STR}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": ref("ClientMetadata")}}},
        "codes": ("invalid_registration_token", "registration_not_enabled", "invalid_client_metadata",
                  "invalid_redirect_uri", "unsupported_media_type"),
        "responses": {"200": json_response(ref("ClientInformation"), "The registration, with a new registration "
                                           "access token (RFC 7592 3); the one sent stops working.",
                                           headers=NO_STORE_HEADERS)},
    },
    ("/oauth/register/{client_id}", "DELETE"): {
        "summary": "Delete a client's registration (RFC 7592 2.3)", "surface": "oauth", "security": [{"bearer": []}],
        "parameters": [{"name": "client_id", "in": "path", "required": True, "schema": STR}],
        "codes": ("invalid_registration_token", "registration_not_enabled"),
        "responses": {"204": {"description": "Deleted; the client and its token stop working at once."}},
    },
    ("/oauth/token", "OPTIONS"): cors_options("the token endpoint", "POST", "oauth"),
    ("/oauth/revoke", "OPTIONS"): cors_options("the revocation endpoint", "POST", "oauth"),
}
