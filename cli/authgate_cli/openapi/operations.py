"""What template.yaml cannot say about each route: parameters, bodies, success responses and the
catalogue codes it can fail with (keyed by the template's (path, METHOD); build.py checks both
lists are the same). Schemas follow the renderers in authgate.http.shapes and the RFCs named."""

from __future__ import annotations

from typing import Any

_STR = {"type": "string"}
_INT = {"type": "integer"}
_FORM = "application/x-www-form-urlencoded"
NO_STORE_HEADERS = {"Cache-Control": {"schema": {"type": "string", "const": "no-store"}}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str, media: str = "application/json",
          headers: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description, "content": {media: {"schema": schema}}}
    if headers:
        out["headers"] = headers
    return out


_FIELD_ERROR = {"type": "object", "required": ["detail"], "properties": {
    "detail": _STR, "pointer": _STR, "parameter": _STR, "header": _STR}}

def _cors_options(what: str, method: str, surface: str) -> dict[str, Any]:
    """OPTIONS on a resource browser-based clients call: CORS preflight (authgate.http.cors)."""
    header = {"schema": _STR}
    return {
        "summary": f"CORS preflight of {what} (browser-based public clients); plain OPTIONS lists the methods",
        "surface": surface,
        "parameters": [{"name": "Origin", "in": "header", "schema": _STR},
                       {"name": "Access-Control-Request-Method", "in": "header", "schema": _STR}],
        "codes": ("origin_not_allowed",),
        "responses": {"204": {
            "description": f"Preflight allowed: the Origin is that of a public client's redirect URI; {method} "
                           "may follow. Without Access-Control-Request-Method: just Allow.",
            "headers": {"Allow": header, "Access-Control-Allow-Origin": header,
                        "Access-Control-Allow-Methods": header, "Access-Control-Allow-Headers": header,
                        "Access-Control-Max-Age": header, "Vary": header}}},
    }


SCHEMAS: dict[str, Any] = {
    "Problem": {
        "type": "object", "description": "RFC 9457 problem details; `status` equals the HTTP status.",
        "required": ["type", "title", "status", "code"],
        "properties": {"type": {"type": "string", "format": "uri"}, "title": _STR,
                       "status": {"type": "integer", "minimum": 400, "maximum": 599}, "detail": _STR,
                       "instance": _STR, "code": _STR, "traceId": _STR,
                       "errors": {"type": "array", "items": _FIELD_ERROR}},
    },
    "JsonApiErrors": {
        "type": "object", "description": "JSON:API 1.1 error document.", "required": ["errors"],
        "properties": {"jsonapi": {"type": "object"}, "errors": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["status", "code"],
            "properties": {"status": _STR, "code": _STR, "title": _STR, "detail": _STR,
                           "source": {"type": "object", "properties": {
                               "pointer": _STR, "parameter": _STR, "header": _STR}},
                           "links": {"type": "object"}, "meta": {"type": "object"}}}}},
    },
    "LegacyA": {
        "type": "object", "description": "Legacy variant A (clients registered with error_format legacy-a).",
        "required": ["error", "message", "code", "status"],
        "properties": {"error": _STR, "message": _STR, "code": _STR, "status": _INT},
    },
    "LegacyB": {
        "type": "object", "description": "Legacy variant B (legacy-b); always sent with the real 4xx/5xx.",
        "required": ["success", "errors"],
        "properties": {"success": {"const": False}, "errors": {"type": "array", "items": {
            "type": "object", "required": ["field", "message"],
            "properties": {"field": _STR, "message": _STR, "code": _STR}}}},
    },
    "OAuthError": {
        "type": "object", "description": "RFC 6749 5.2 error response.", "required": ["error"],
        "properties": {"error": _STR, "error_description": _STR, "error_uri": _STR},
    },
    "TokenResponse": {
        "type": "object", "description": "RFC 6749 5.1; access_token is an RFC 9068 JWT.",
        "required": ["access_token", "token_type", "expires_in"],
        "properties": {"access_token": _STR, "token_type": {"enum": ["Bearer", "DPoP"]}, "expires_in": _INT,
                       "scope": _STR, "refresh_token": _STR,
                       "issued_token_type": {"type": "string", "description": "Token exchange (RFC 8693 2.2.1)."},
                       "authorization_details": {"type": "array", "items": {"type": "object"},
                                                 "description": "RFC 9396 7: what the access token allows in "
                                                                "detail."}},
    },
    "Introspection": {
        "type": "object", "description": "RFC 7662 2.2.", "required": ["active"],
        "properties": {"active": {"type": "boolean"}, "scope": _STR, "client_id": _STR, "sub": _STR,
                       "exp": _INT, "iat": _INT, "iss": _STR, "aud": {}, "jti": _STR, "token_type": _STR,
                       "act": {"type": "object", "description": "RFC 8693 4.1: who acts, nested per hop."},
                       "authorization_details": {"type": "array", "items": {"type": "object"},
                                                 "description": "RFC 9396 9.2."}},
    },
    "ClientMetadata": {
        "type": "object", "description": "RFC 7591 2: the client's own metadata (public or private_key_jwt).",
        "required": ["redirect_uris"],
        "properties": {"redirect_uris": {"type": "array", "items": _STR}, "client_name": _STR, "scope": _STR,
                       "token_endpoint_auth_method": {"enum": ["none", "private_key_jwt"]},
                       "grant_types": {"type": "array", "items": {"enum": ["authorization_code", "refresh_token"]}},
                       "response_types": {"type": "array", "items": {"const": "code"}}, "jwks": {"type": "object"},
                       "dpop_bound_access_tokens": {"type": "boolean"}},
    },
    "ClientInformation": {
        "type": "object", "description": "RFC 7591 3.2.1, RFC 7592 3.",
        "required": ["client_id", "client_id_issued_at", "registration_client_uri", "redirect_uris"],
        "properties": {"client_id": _STR, "client_id_issued_at": _INT, "registration_access_token": _STR,
                       "registration_client_uri": _STR, "client_name": _STR, "redirect_uris": {"type": "array"},
                       "grant_types": {"type": "array"}, "response_types": {"type": "array"},
                       "token_endpoint_auth_method": _STR, "scope": _STR, "jwks": {"type": "object"}},
    },
    "Jwks": {"type": "object", "required": ["keys"], "properties": {"keys": {"type": "array", "items": {
        "type": "object", "required": ["kty", "kid"]}}}},
    "Metadata": {"type": "object", "description": "RFC 8414 2.", "required": ["issuer", "token_endpoint"]},
    "UserInfo": {"type": "object", "description": "OpenID Connect Core 5.3.2: the claims the scopes release.",
                 "required": ["sub"], "properties": {
                     "sub": _STR, "name": _STR, "preferred_username": _STR, "updated_at": {"type": "integer"},
                     "email": _STR, "email_verified": {"type": "boolean"}}},
    "ResourceMetadata": {"type": "object", "description": "RFC 9728 2.",
                         "required": ["resource", "authorization_servers"]},
    "ChargeCreate": {
        "type": "object", "additionalProperties": False, "required": ["amount", "currency"],
        "properties": {"amount": {"type": "integer", "minimum": 1}, "currency": {"type": "string"},
                       "description": {"type": ["string", "null"]},
                       "invoice_id": {"type": ["string", "null"]}},
    },
    "Charge": {
        "type": "object", "required": ["id", "object", "amount", "currency", "status", "created"],
        "properties": {"id": _STR, "object": {"const": "charge"}, "amount": _INT, "currency": _STR,
                       "description": {"type": ["string", "null"]}, "invoice_id": {"type": ["string", "null"]},
                       "status": _STR, "created": _INT,
                       "created_by": {"type": ["object", "null"], "description": "Who created it: the token's "
                                      "sub and act (RFC 8693 4.1; null before it was recorded).",
                                      "properties": {"sub": _STR, "act": {"type": ["object", "null"]}}},
                       "grant_id": {"type": ["string", "null"], "description": "The grant whose approved payment "
                                    "(RFC 9396 charge authorization_details) it used; null for a charge under scope "
                                    "alone."}},
    },
    "ChargeList": {
        "type": "object", "required": ["object", "data", "has_more"],
        "properties": {"object": {"const": "list"}, "data": {"type": "array", "items": _ref("Charge")},
                       "has_more": {"type": "boolean"}, "next_cursor": {"type": ["string", "null"]}},
    },
}

_CLIENT_AUTH_FORM = {
    "client_id": {"type": "string", "description": "client_secret_post or a public client (none)."},
    "client_secret": {"type": "string", "description": "client_secret_post; never together with Basic."},
    "client_assertion_type": {"type": "string", "enum": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
                              "description": "private_key_jwt (RFC 7523 2.2)."},
    "client_assertion": {"type": "string", "description": "private_key_jwt: a JWT signed by a registered key, "
                                                          "aud = the issuer identifier."},
}
_TOKEN_FORM = {"type": "object", "required": ["grant_type"], "properties": {
    "grant_type": {"type": "string", "enum": ["authorization_code", "refresh_token", "client_credentials", "password",
                                              "urn:ietf:params:oauth:grant-type:token-exchange",
                                              "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                              "urn:ietf:params:oauth:grant-type:device_code",
                                              "urn:openid:params:grant-type:ciba"]},
    "device_code": {"type": "string", "description": "The device authorization grant (RFC 8628 3.4): the "
                                                     "device_code of /oauth/device_authorization."},
    "auth_req_id": {"type": "string", "description": "The CIBA grant (OpenID Connect CIBA Core 10.1): the "
                                                     "backchannel request's identifier."},
    "assertion": {"type": "string", "description": "jwt-bearer (RFC 7523 2.1): an ID-JAG of an identity provider "
                                                   "the client's tenant trusts."},
    "code": _STR, "redirect_uri": _STR, "code_verifier": _STR, "refresh_token": _STR, "scope": _STR,
    "username": _STR, "password": _STR,
    "subject_token": {"type": "string", "description": "Token exchange (RFC 8693 2.1): an access token whose aud is "
                                                       "the resource whose credentials authenticate."},
    "subject_token_type": {"type": "string", "enum": ["urn:ietf:params:oauth:token-type:access_token"]},
    "actor_token": _STR, "actor_token_type": {"type": "string", "enum": ["urn:ietf:params:oauth:token-type:access_token"]},
    "requested_token_type": {"type": "string", "enum": ["urn:ietf:params:oauth:token-type:access_token"]},
    "audience": {"type": "string", "description": "Token exchange (RFC 8693 2.1): the target, as resource."},
    "resource": {"type": "string", "description": "RFC 8707: the API the token is for, once: <issuer>/charges "
                                                  "(the default) or a registered resource (`authgate resources`)."},
    "authorization_details": {"type": "string", "description": "RFC 9396 6.2: JSON, a subset of the grant's "
                                                               "authorization_details."},
    **_CLIENT_AUTH_FORM}}
_TOKEN_ONLY_FORM = {"type": "object", "required": ["token"], "properties": {
    "token": _STR, "token_type_hint": {"type": "string", "enum": ["access_token", "refresh_token"]},
    **_CLIENT_AUTH_FORM}}
_OAUTH_CODES = ("invalid_request", "invalid_client", "service_unavailable")
_PAR_FORM = {"type": "object", "required": ["client_id", "response_type"], "properties": {
    "client_id": _STR, "response_type": {"type": "string", "enum": ["code"]}, "redirect_uri": _STR,
    "scope": _STR, "state": _STR, "code_challenge": _STR, "code_challenge_method": {"type": "string", "enum": ["S256"]},
    "resource": _STR, "dpop_jkt": _STR, "authorization_details": _STR, **_CLIENT_AUTH_FORM}}
_BACKCHANNEL_FORM = {"type": "object", "required": ["scope"], "properties": {
    "scope": {"type": "string", "description": "With openid (OpenID Connect CIBA Core 7.1)."},
    "login_hint": {"type": "string", "description": "A username of the client's tenant, or an email it knows."},
    "id_token_hint": {"type": "string", "description": "An ID token issued to this client."},
    "binding_message": {"type": "string", "maxLength": 100}, "requested_expiry": _STR, "acr_values": _STR,
    "resource": _STR, **_CLIENT_AUTH_FORM}}
_BACKCHANNEL_RESPONSE = {"type": "object", "required": ["auth_req_id", "expires_in", "interval"], "properties": {
    "auth_req_id": _STR, "expires_in": {"type": "integer", "maximum": 600}, "interval": {"type": "integer"}}}
_PAR_RESPONSE = {"type": "object", "required": ["request_uri", "expires_in"], "properties": {
    "request_uri": {"type": "string", "pattern": "^urn:ietf:params:oauth:request_uri:"},
    "expires_in": {"type": "integer", "maximum": 60}}}
_DEVICE_FORM = {"type": "object", "properties": {"client_id": _STR, "scope": _STR, "resource": _STR,
                                                  **_CLIENT_AUTH_FORM}}
_DEVICE_RESPONSE = {"type": "object", "required": ["device_code", "user_code", "verification_uri",
                                                   "verification_uri_complete", "expires_in", "interval"],
                    "properties": {"device_code": _STR, "user_code": {"type": "string",
                                                                      "pattern": "^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$"},
                                   "verification_uri": _STR, "verification_uri_complete": _STR,
                                   "expires_in": {"type": "integer"}, "interval": {"type": "integer"}}}
_BEARER_CODES = ("invalid_request", "unauthenticated", "invalid_token", "insufficient_scope", "invalid_api_key",
                 "invalid_dpop_proof", "use_dpop_nonce")
_LOGOUT_PARAMETERS = ("id_token_hint", "logout_hint", "client_id", "post_logout_redirect_uri", "state", "ui_locales")
_LOGOUT_QUERY = [{"name": n, "in": "query", "required": False, "schema": _STR} for n in _LOGOUT_PARAMETERS]
# The bearer guard's refusals, on the issuer's own endpoint (no API key there).
_USERINFO_CODES = tuple(c for c in _BEARER_CODES if c != "invalid_api_key")
_AUTHORIZE_QUERY = [{"name": n, "in": "query", "required": False, "schema": _STR} for n in (
    "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method",
    "resource", "dpop_jkt", "request_uri", "authorization_details",
    # OpenID Connect Core 3.1.2.1, 5.5 (docs/oidc.md).
    "nonce", "prompt", "max_age", "login_hint", "id_token_hint", "ui_locales", "claims", "acr_values")]
_REDIRECT = {"description": "Redirect to the client's registered redirect URI with `code` or `error` "
                            "(RFC 6749 4.1.2 / 4.1.2.1), `state` and `iss` (RFC 9207).",
             "headers": {"Location": {"schema": _STR}}}
_PAGE = {"description": "Login and consent page (HTML form).", "content": {"text/html": {"schema": _STR}}}
_ID = [{"name": "id", "in": "path", "required": True, "schema": _STR}]
_IDEMPOTENCY = {"name": "Idempotency-Key", "in": "header", "required": False,
                "description": "1-255 visible ASCII characters, scoped to the client, kept 24 h.",
                "schema": {"type": "string", "minLength": 1, "maxLength": 255}}

OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("/oauth/authorize", "GET"): {
        "summary": "Authorization request (RFC 6749 4.1.1, PKCE RFC 7636): login and consent page",
        "surface": "authorize", "parameters": _AUTHORIZE_QUERY,
        "codes": ("invalid_request", "unauthorized_client", "invalid_request_uri", "service_unavailable",
                  "login_required", "unmet_authentication_requirements", "request_not_supported",
                  "registration_not_supported", "invalid_authorization_details"),
        "responses": {"200": _PAGE, "302": _REDIRECT},
    },
    ("/oauth/authorize", "POST"): {
        "summary": "Login and decision (approve or deny); redirects with a code or an error. A form with "
                   "client_id or response_type and no request_blob is an authorization request, as the GET "
                   "(OpenID Connect Core 3.1.2.1)",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {_FORM: {"schema": {"type": "object", "properties": {
            "request_blob": _STR, "csrf": _STR, "username": _STR, "password": _STR,
            "decision": {"type": "string", "enum": ["approve", "deny"]},
            "factor_ticket": _STR, "code": _STR}}}}},
        "codes": ("invalid_request", "unauthorized_client", "unsupported_media_type", "service_unavailable"),
        "responses": {"200": _PAGE, "303": _REDIRECT},
    },
    ("/oauth/forgot-password", "GET"): {
        "summary": "Forgotten password: the form naming the account (only where the stage sends mail)",
        "surface": "authorize",
        "parameters": [{"name": "tenant", "in": "query", "required": False, "schema": _STR,
                        "description": "The organisation the sign-in page was for."}],
        "codes": ("not_found", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/forgot-password", "POST"): {
        "summary": "Mails a single-use reset link if the account exists; the same page either way",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {_FORM: {"schema": {"type": "object", "properties": {
            "nonce": _STR, "csrf": _STR, "tenant": _STR, "username": _STR}}}}},
        "codes": ("invalid_request", "not_found", "rate_limited", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/reset-password", "GET"): {
        "summary": "The mailed link's page: choose a new password (the link is not consumed here)",
        "surface": "authorize",
        "parameters": [{"name": "token", "in": "query", "required": True, "schema": _STR,
                        "description": "The reset link's single-use token."}],
        "codes": ("not_found", "password_reset_link_invalid", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/reset-password", "POST"): {
        "summary": "Sets the new password and uses the link up",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {_FORM: {"schema": {"type": "object", "properties": {
            "token": _STR, "nonce": _STR, "csrf": _STR, "password": _STR, "confirm": _STR}}}}},
        "codes": ("invalid_request", "not_found", "password_reset_link_invalid", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/approve", "GET"): {
        "summary": "A backchannel request's approval link (OpenID Connect CIBA): the request in plain words and "
                   "the sign-in at mfa (the link is not spent here)",
        "surface": "authorize",
        "parameters": [{"name": "token", "in": "query", "required": True, "schema": _STR,
                        "description": "The approval link's single-use token."}],
        "codes": ("approval_link_invalid", "approval_wrong_user", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/approve", "POST"): {
        "summary": "Sign in at mfa and approve or deny a backchannel request; spends the link",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {_FORM: {"schema": {"type": "object", "properties": {
            "token": _STR, "nonce": _STR, "csrf": _STR, "username": _STR, "password": _STR, "code": _STR,
            "decision": {"type": "string", "enum": ["approve", "deny"]}}}}}},
        "codes": ("invalid_request", "approval_link_invalid", "approval_wrong_user", "rate_limited",
                  "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/account", "GET"): {
        "summary": "The account page: sign in on it, then change your own password",
        "surface": "authorize",
        "codes": ("service_unavailable",),
        "responses": {"200": _PAGE},
    },
    ("/oauth/account", "POST"): {
        "summary": "Signs in on the account page (action=sign_in), changes the password (action=change), sets up, "
                   "confirms or removes a one-time code (action=totp_start, totp_confirm, totp_remove)",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {_FORM: {"schema": {"type": "object", "properties": {
            "action": {"type": "string", "enum": ["sign_in", "change", "totp_start", "totp_confirm", "totp_remove"]},
            "nonce": _STR, "csrf": _STR, "tenant": _STR, "username": _STR, "password": _STR, "current": _STR,
            "new_password": _STR, "confirm": _STR, "code": _STR}}}}},
        "codes": ("invalid_request", "rate_limited", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/token", "POST"): {
        "summary": "Token endpoint (RFC 6749 3.2): authorization_code + PKCE, refresh_token, client_credentials, "
                   "token exchange (RFC 8693), ID-JAG (RFC 7523 jwt-bearer), device_code (RFC 8628)",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {_FORM: {"schema": _TOKEN_FORM}}},
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
        "parameters": [{"name": "DPoP", "in": "header", "required": False, "schema": _STR,
                        "description": "A DPoP proof (RFC 9449 4): the token is then DPoP-bound."}],
        "responses": {"200": _json(_ref("TokenResponse"), "Token response.", headers=NO_STORE_HEADERS)},
    },
    ("/oauth/par", "POST"): {
        "summary": "Pushed authorization request (RFC 9126): the authorization request, checked now; "
                   "answers a one-time request_uri for /oauth/authorize",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {_FORM: {"schema": _PAR_FORM}}},
        "codes": _OAUTH_CODES + ("unauthorized_client", "invalid_scope", "unsupported_media_type", "invalid_target",
                                 "unknown_resource", "resource_not_allowed", "invalid_authorization_details"),
        "responses": {"201": _json(_PAR_RESPONSE, "The request_uri and its lifetime in seconds.",
                                   headers=NO_STORE_HEADERS)},
    },
    ("/oauth/device_authorization", "POST"): {
        "summary": "Device authorization request (RFC 8628 3.1): a device code to poll the token endpoint with, "
                   "and a user code for the person to enter on the verification page",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {_FORM: {"schema": _DEVICE_FORM}}},
        "codes": _OAUTH_CODES + ("unauthorized_client", "invalid_scope", "unsupported_media_type",
                                 "invalid_target", "unknown_resource", "resource_not_allowed"),
        "responses": {"200": _json(_DEVICE_RESPONSE, "The device authorization response (RFC 8628 3.2).",
                                   headers=NO_STORE_HEADERS)},
    },
    ("/oauth/device", "GET"): {
        "summary": "The device verification page (RFC 8628 3.3): the form for the user code",
        "surface": "authorize",
        "parameters": [{"name": "user_code", "in": "query", "required": False, "schema": _STR,
                        "description": "The user code, from verification_uri_complete (RFC 8628 3.3.1)."}],
        "codes": ("service_unavailable",),
        "responses": {"200": _PAGE},
    },
    ("/oauth/device", "POST"): {
        "summary": "The user code (action=code), then the decision (action=decide): approve, after signing in "
                   "or in the browser's session, or deny",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {_FORM: {"schema": {"type": "object", "properties": {
            "action": {"type": "string", "enum": ["code", "decide"]}, "nonce": _STR, "csrf": _STR, "user_code": _STR,
            "username": _STR, "password": _STR, "decision": {"type": "string", "enum": ["approve", "deny"]}}}}}},
        "codes": ("invalid_request", "rate_limited", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/backchannel", "POST"): {
        "summary": "Backchannel authentication request (OpenID Connect CIBA Core 1.0 7, poll mode): a person is asked "
                   "to approve; poll /oauth/token with the auth_req_id",
        "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {_FORM: {"schema": _BACKCHANNEL_FORM}}},
        "codes": _OAUTH_CODES + ("unauthorized_client", "invalid_scope", "unsupported_media_type", "invalid_target",
                                 "unknown_resource", "resource_not_allowed", "invalid_binding_message",
                                 "login_hint_token_not_supported", "access_denied"),
        "responses": {"200": _json(_BACKCHANNEL_RESPONSE, "The auth_req_id, its lifetime and the polling interval.",
                                   headers=NO_STORE_HEADERS)},
    },
    ("/oauth/revoke", "POST"): {
        "summary": "Token revocation (RFC 7009)", "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {_FORM: {"schema": _TOKEN_ONLY_FORM}}},
        "codes": _OAUTH_CODES + ("unsupported_media_type",),
        "responses": {"200": _json({"type": "object"}, "Revoked, or the token was unknown (RFC 7009 2.2).")},
    },
    ("/oauth/introspect", "POST"): {
        "summary": "Token introspection (RFC 7662)", "surface": "oauth", "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": True, "content": {_FORM: {"schema": _TOKEN_ONLY_FORM}}},
        "codes": _OAUTH_CODES + ("unsupported_media_type",),
        "responses": {"200": _json(_ref("Introspection"), "Introspection response.")},
    },
    ("/oauth/logout", "GET"): {
        "summary": "Sign out (OpenID Connect RP-Initiated Logout 1.0): end the browser's session",
        "surface": "authorize", "parameters": _LOGOUT_QUERY, "codes": ("invalid_request", "service_unavailable"),
        "responses": {"200": _PAGE, "302": {"description": "Back to the registered post_logout_redirect_uri, "
                                                           "with state."}},
    },
    ("/oauth/logout", "POST"): {
        "summary": "Sign out (OpenID Connect RP-Initiated Logout 1.0), the parameters in a form; the confirmation",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {_FORM: {"schema": {"type": "object", "properties": {
            **{n: _STR for n in _LOGOUT_PARAMETERS}, "confirm": _STR, "csrf": _STR}}}}},
        "codes": ("invalid_request", "service_unavailable"),
        "responses": {"200": _PAGE, "302": {"description": "Back to the registered post_logout_redirect_uri, "
                                                           "with state."}},
    },
    ("/oauth/userinfo", "GET"): {
        "summary": "The signed-in user's claims (OpenID Connect Core 5.3; a token with scope openid)",
        "surface": "api", "codes": _USERINFO_CODES,
        "responses": {"200": _json(_ref("UserInfo"), "The claims the token's scopes release.",
                                   headers=NO_STORE_HEADERS)},
    },
    ("/oauth/userinfo", "POST"): {
        "summary": "The signed-in user's claims (OpenID Connect Core 5.3); the token may be in the form body",
        "surface": "api",
        "requestBody": {"required": False, "content": {_FORM: {"schema": {"type": "object", "properties": {
            "access_token": _STR}}}}},
        "codes": _USERINFO_CODES,
        "responses": {"200": _json(_ref("UserInfo"), "The claims the token's scopes release.",
                                   headers=NO_STORE_HEADERS)},
    },
    ("/oauth/register", "POST"): {
        "summary": "Dynamic client registration (RFC 7591 3)", "surface": "oauth", "security": [{}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("ClientMetadata")}}},
        "codes": ("invalid_client_metadata", "invalid_redirect_uri", "registration_not_enabled",
                  "registration_pool_full", "registration_rate_limited", "unsupported_media_type"),
        "responses": {"201": _json(_ref("ClientInformation"), "The registered client and its registration "
                                   "access token (shown once).", headers=NO_STORE_HEADERS)},
    },
    ("/oauth/register/{client_id}", "GET"): {
        "summary": "Read a client's registration (RFC 7592 2.1)", "surface": "oauth", "security": [{"bearer": []}],
        "parameters": [{"name": "client_id", "in": "path", "required": True, "schema": _STR}],
        "codes": ("invalid_registration_token", "registration_not_enabled"),
        "responses": {"200": _json(_ref("ClientInformation"), "The registration.", headers=NO_STORE_HEADERS)},
    },
    ("/oauth/register/{client_id}", "PUT"): {
        "summary": "Replace a client's metadata (RFC 7592 2.2)", "surface": "oauth", "security": [{"bearer": []}],
        "parameters": [{"name": "client_id", "in": "path", "required": True, "schema": _STR}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("ClientMetadata")}}},
        "codes": ("invalid_registration_token", "registration_not_enabled", "invalid_client_metadata",
                  "invalid_redirect_uri", "unsupported_media_type"),
        "responses": {"200": _json(_ref("ClientInformation"), "The registration, with a new registration access "
                                   "token (RFC 7592 3); the one sent stops working.", headers=NO_STORE_HEADERS)},
    },
    ("/oauth/register/{client_id}", "DELETE"): {
        "summary": "Delete a client's registration (RFC 7592 2.3)", "surface": "oauth", "security": [{"bearer": []}],
        "parameters": [{"name": "client_id", "in": "path", "required": True, "schema": _STR}],
        "codes": ("invalid_registration_token", "registration_not_enabled"),
        "responses": {"204": {"description": "Deleted; the client and its token stop working at once."}},
    },
    ("/.well-known/jwks.json", "GET"): {
        "summary": "Published signing keys (RFC 7517): next, current and previous",
        "surface": "api", "codes": (), "responses": {"200": _json(_ref("Jwks"), "JWK Set.")},
    },
    ("/.well-known/oauth-authorization-server", "GET"): {
        "summary": "Authorization server metadata (RFC 8414)",
        "surface": "api", "codes": (), "responses": {"200": _json(_ref("Metadata"), "Metadata.")},
    },
    ("/.well-known/openid-configuration", "GET"): {
        "summary": "OpenID Provider metadata (OpenID Connect Discovery 1.0): the RFC 8414 document",
        "surface": "api", "codes": (), "responses": {"200": _json(_ref("Metadata"), "Metadata.")},
    },
    ("/.well-known/oauth-protected-resource", "GET"): {
        "summary": "The charges API's protected resource metadata (RFC 9728)",
        "surface": "api", "codes": (), "responses": {"200": _json(_ref("ResourceMetadata"), "Metadata.")},
    },
    ("/.well-known/oauth-protected-resource/charges", "GET"): {
        "summary": "The charges API's protected resource metadata at its RFC 9728 3.1 path",
        "surface": "api", "codes": (), "responses": {"200": _json(_ref("ResourceMetadata"), "Metadata.")},
    },
    ("/problems/{code}", "GET"): {
        "summary": "Documentation of one problem type (the `type` URI of problem+json)",
        "surface": "api", "parameters": [{"name": "code", "in": "path", "required": True, "schema": _STR}],
        "codes": ("not_found",),
        "responses": {"200": {"description": "The code's page (HTML) or its catalogue entry (JSON).",
                              "content": {"text/html": {"schema": _STR},
                                          "application/json": {"schema": {"type": "object"}}}}},
    },
    ("/openapi.json", "GET"): {
        "summary": "This OpenAPI document", "surface": "api", "codes": (),
        "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1 document.")},
    },
    ("/oauth/token", "OPTIONS"): _cors_options("the token endpoint", "POST", "oauth"),
    ("/oauth/revoke", "OPTIONS"): _cors_options("the revocation endpoint", "POST", "oauth"),
    ("/oauth/userinfo", "OPTIONS"): _cors_options("the UserInfo endpoint", "GET, POST", "api"),
    ("/.well-known/openid-configuration", "OPTIONS"): _cors_options("the metadata", "GET", "api"),
    ("/.well-known/jwks.json", "OPTIONS"): _cors_options("the JWK Set", "GET", "api"),
    ("/.well-known/oauth-authorization-server", "OPTIONS"): _cors_options("the metadata", "GET", "api"),
    ("/.well-known/oauth-protected-resource", "OPTIONS"): _cors_options("the resource metadata", "GET", "api"),
    ("/.well-known/oauth-protected-resource/charges", "OPTIONS"): _cors_options("the resource metadata", "GET",
                                                                                 "api"),
    ("/assets/authgate.css", "GET"): {
        "summary": "The one stylesheet of every HTML page (sign-in, authorization errors, problem pages)",
        "surface": "api", "codes": (),
        "responses": {"200": {"description": "CSS, cacheable for a year (pages link it with a content digest).",
                              "content": {"text/css": {"schema": _STR}}}},
    },
    ("/assets/passkeys.js", "GET"): {
        "summary": "The passkey pages' one script (WebAuthn create and get; the account page and the sign-in)",
        "surface": "api", "codes": (),
        "responses": {"200": {"description": "JavaScript, cacheable for a year (pages link it with a content digest).",
                              "content": {"text/javascript": {"schema": _STR}}}},
    },
    ("/charges", "POST"): {
        "summary": "Create a charge (scope charges:write); idempotent with Idempotency-Key",
        "surface": "api", "parameters": [_IDEMPOTENCY],
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("ChargeCreate")}}},
        "codes": _BEARER_CODES + ("malformed_json", "validation_failed", "invalid_idempotency_key",
                                  "idempotency_key_reused", "idempotency_request_in_progress", "invoice_locked",
                                  "invoice_already_paid", "currency_not_enabled", "invoice_not_found",
                                  "concurrent_update", "insufficient_user_authentication",
                                  "authorization_details_exceeded"),
        "responses": {
            "201": _json(_ref("Charge"), "Created.", headers={"Location": {"schema": _STR}}),
            "200": _json(_ref("Charge"), "Replay of an earlier request with the same Idempotency-Key "
                                         "(Idempotent-Replayed: true; status as first sent)."),
        },
    },
    ("/charges", "GET"): {
        "summary": "List the tenant's charges, newest first (scope charges:read)", "surface": "api",
        "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                       {"name": "cursor", "in": "query", "schema": _STR}],
        "codes": _BEARER_CODES, "responses": {"200": _json(_ref("ChargeList"), "One page.")},
    },
    ("/charges/{id}", "GET"): {
        "summary": "One charge of the caller's tenant (scope charges:read)", "surface": "api",
        "parameters": _ID, "codes": _BEARER_CODES + ("not_found",),
        "responses": {"200": _json(_ref("Charge"), "The charge.")},
    },
}
