"""The OpenAPI operations of the bearer-protected resources (surface `api`): UserInfo (OpenID Connect Core
5.3) and the charges API."""

from __future__ import annotations

from typing import Any

from authgate_cli.openapi.operations.components import (
    FORM,
    NO_STORE_HEADERS,
    STR,
    cors_options,
    json_response,
    ref,
)

_BEARER_CODES = ("invalid_request", "unauthenticated", "invalid_token", "insufficient_scope", "invalid_api_key",
                 "invalid_dpop_proof", "use_dpop_nonce")
# The bearer guard's refusals, on the issuer's own endpoint (no API key there).
_USERINFO_CODES = tuple(c for c in _BEARER_CODES if c != "invalid_api_key")
_ID = [{"name": "id", "in": "path", "required": True, "schema": STR}]
_IDEMPOTENCY = {"name": "Idempotency-Key", "in": "header", "required": False,
                "description": "1-255 visible ASCII characters, scoped to the client, kept 24 h.",
                "schema": {"type": "string", "minLength": 1, "maxLength": 255}}

OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("/oauth/userinfo", "GET"): {
        "summary": "The signed-in user's claims (OpenID Connect Core 5.3; a token with scope openid)",
        "surface": "api", "codes": _USERINFO_CODES,
        "responses": {"200": json_response(ref("UserInfo"), "The claims the token's scopes release.",
                                           headers=NO_STORE_HEADERS)},
    },
    ("/oauth/userinfo", "POST"): {
        "summary": "The signed-in user's claims (OpenID Connect Core 5.3); the token may be in the form body",
        "surface": "api",
        "requestBody": {"required": False, "content": {FORM: {"schema": {"type": "object", "properties": {
            "access_token": STR}}}}},
        "codes": _USERINFO_CODES,
        "responses": {"200": json_response(ref("UserInfo"), "The claims the token's scopes release.",
                                           headers=NO_STORE_HEADERS)},
    },
    ("/oauth/userinfo", "OPTIONS"): cors_options("the UserInfo endpoint", "GET, POST", "api"),
    ("/charges", "POST"): {
        "summary": "Create a charge (scope charges:write); idempotent with Idempotency-Key",
        "surface": "api", "parameters": [_IDEMPOTENCY],
        "requestBody": {"required": True, "content": {"application/json": {"schema": ref("ChargeCreate")}}},
        "codes": _BEARER_CODES + ("malformed_json", "validation_failed", "invalid_idempotency_key",
                                  "idempotency_key_reused", "idempotency_request_in_progress", "invoice_locked",
                                  "invoice_already_paid", "currency_not_enabled", "invoice_not_found",
                                  "concurrent_update", "insufficient_user_authentication",
                                  "authorization_details_exceeded"),
        "responses": {
            "201": json_response(ref("Charge"), "Created.", headers={"Location": {"schema": STR}}),
            "200": json_response(ref("Charge"), "Replay of an earlier request with the same Idempotency-Key "
                                         "(Idempotent-Replayed: true; status as first sent)."),
        },
    },
    ("/charges", "GET"): {
        "summary": "List the tenant's charges, newest first (scope charges:read)", "surface": "api",
        "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                       {"name": "cursor", "in": "query", "schema": STR}],
        "codes": _BEARER_CODES, "responses": {"200": json_response(ref("ChargeList"), "One page.")},
    },
    ("/charges/{id}", "GET"): {
        "summary": "One charge of the caller's tenant (scope charges:read)", "surface": "api",
        "parameters": _ID, "codes": _BEARER_CODES + ("not_found",),
        "responses": {"200": json_response(ref("Charge"), "The charge.")},
    },
}
