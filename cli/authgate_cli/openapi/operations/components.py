"""The OpenAPI document's shared parts: its component schemas (the error shapes of authgate.http.shapes,
the RFCs' responses, the charges API's bodies) and the pieces every area's operations are built from."""

from __future__ import annotations

from typing import Any

from authgate.grant_types import SELF_REGISTERED

STR = {"type": "string"}
INT = {"type": "integer"}
FORM = "application/x-www-form-urlencoded"
NO_STORE_HEADERS = {"Cache-Control": {"schema": {"type": "string", "const": "no-store"}}}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_response(schema: dict[str, Any], description: str, media: str = "application/json",
                  headers: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description, "content": {media: {"schema": schema}}}
    if headers:
        out["headers"] = headers
    return out


_FIELD_ERROR = {"type": "object", "required": ["detail"], "properties": {
    "detail": STR, "pointer": STR, "parameter": STR, "header": STR}}

def cors_options(what: str, method: str, surface: str) -> dict[str, Any]:
    """OPTIONS on a resource browser-based clients call: CORS preflight (authgate.http.cors)."""
    header = {"schema": STR}
    return {
        "summary": f"CORS preflight of {what} (browser-based public clients); plain OPTIONS lists the methods",
        "surface": surface,
        "parameters": [{"name": "Origin", "in": "header", "schema": STR},
                       {"name": "Access-Control-Request-Method", "in": "header", "schema": STR}],
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
        "properties": {"type": {"type": "string", "format": "uri"}, "title": STR,
                       "status": {"type": "integer", "minimum": 400, "maximum": 599}, "detail": STR,
                       "instance": STR, "code": STR, "traceId": STR,
                       "errors": {"type": "array", "items": _FIELD_ERROR}},
    },
    "JsonApiErrors": {
        "type": "object", "description": "JSON:API 1.1 error document.", "required": ["errors"],
        "properties": {"jsonapi": {"type": "object"}, "errors": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["status", "code"],
            "properties": {"status": STR, "code": STR, "title": STR, "detail": STR,
                           "source": {"type": "object", "properties": {
                               "pointer": STR, "parameter": STR, "header": STR}},
                           "links": {"type": "object"}, "meta": {"type": "object"}}}}},
    },
    "LegacyA": {
        "type": "object", "description": "Legacy variant A (clients registered with error_format legacy-a).",
        "required": ["error", "message", "code", "status"],
        "properties": {"error": STR, "message": STR, "code": STR, "status": INT},
    },
    "LegacyB": {
        "type": "object", "description": "Legacy variant B (legacy-b); always sent with the real 4xx/5xx.",
        "required": ["success", "errors"],
        "properties": {"success": {"const": False}, "errors": {"type": "array", "items": {
            "type": "object", "required": ["field", "message"],
            "properties": {"field": STR, "message": STR, "code": STR}}}},
    },
    "OAuthError": {
        "type": "object", "description": "RFC 6749 5.2 error response.", "required": ["error"],
        "properties": {"error": STR, "error_description": STR, "error_uri": STR},
    },
    "TokenResponse": {
        "type": "object", "description": "RFC 6749 5.1; access_token is an RFC 9068 JWT.",
        "required": ["access_token", "token_type", "expires_in"],
        "properties": {"access_token": STR, "token_type": {"enum": ["Bearer", "DPoP"]}, "expires_in": INT,
                       "scope": STR, "refresh_token": STR,
                       "issued_token_type": {"type": "string", "description": "Token exchange (RFC 8693 2.2.1)."},
                       "authorization_details": {"type": "array", "items": {"type": "object"},
                                                 "description": "RFC 9396 7: what the access token allows in "
                                                                "detail."}},
    },
    "Introspection": {
        "type": "object", "description": "RFC 7662 2.2.", "required": ["active"],
        "properties": {"active": {"type": "boolean"}, "scope": STR, "client_id": STR, "sub": STR,
                       "exp": INT, "iat": INT, "iss": STR, "aud": {}, "jti": STR, "token_type": STR,
                       "act": {"type": "object", "description": "RFC 8693 4.1: who acts, nested per hop."},
                       "authorization_details": {"type": "array", "items": {"type": "object"},
                                                 "description": "RFC 9396 9.2."}},
    },
    "ClientMetadata": {
        "type": "object", "description": "RFC 7591 2: the client's own metadata (public or private_key_jwt).",
        "required": ["redirect_uris"],
        "properties": {"redirect_uris": {"type": "array", "items": STR}, "client_name": STR, "scope": STR,
                       "token_endpoint_auth_method": {"enum": ["none", "private_key_jwt"]},
                       "grant_types": {"type": "array", "items": {"enum": list(SELF_REGISTERED)}},
                       "response_types": {"type": "array", "items": {"const": "code"}}, "jwks": {"type": "object"},
                       "dpop_bound_access_tokens": {"type": "boolean"}},
    },
    "ClientInformation": {
        "type": "object", "description": "RFC 7591 3.2.1, RFC 7592 3.",
        "required": ["client_id", "client_id_issued_at", "registration_client_uri", "redirect_uris"],
        "properties": {"client_id": STR, "client_id_issued_at": INT, "registration_access_token": STR,
                       "registration_client_uri": STR, "client_name": STR, "redirect_uris": {"type": "array"},
                       "grant_types": {"type": "array"}, "response_types": {"type": "array"},
                       "token_endpoint_auth_method": STR, "scope": STR, "jwks": {"type": "object"}},
    },
    "Jwks": {"type": "object", "required": ["keys"], "properties": {"keys": {"type": "array", "items": {
        "type": "object", "required": ["kty", "kid"]}}}},
    "Metadata": {"type": "object", "description": "RFC 8414 2.", "required": ["issuer", "token_endpoint"]},
    "UserInfo": {"type": "object", "description": "OpenID Connect Core 5.3.2: the claims the scopes release.",
                 "required": ["sub"], "properties": {
                     "sub": STR, "name": STR, "preferred_username": STR, "updated_at": {"type": "integer"},
                     "email": STR, "email_verified": {"type": "boolean"}}},
    "ResourceMetadata": {"type": "object", "description": "RFC 9728 2.",
                         "required": ["resource", "authorization_servers"]},
    "ChargeCreate": {
        "type": "object", "additionalProperties": False, "required": ["amount", "currency"],
        "properties": {"amount": {"type": "integer", "minimum": 1}, "currency": {"type": "string"},
                       "description": {"type": ["string", "null"], "maxLength": 500,
                                       "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
                                       "description": "Printable text: no control characters."},
                       "invoice_id": {"type": ["string", "null"]}},
    },
    "Charge": {
        "type": "object", "required": ["id", "object", "amount", "currency", "status", "created"],
        "properties": {"id": STR, "object": {"const": "charge"}, "amount": INT, "currency": STR,
                       "description": {"type": ["string", "null"]}, "invoice_id": {"type": ["string", "null"]},
                       "status": STR, "created": INT,
                       "created_by": {"type": ["object", "null"], "description": "Who created it: the token's "
                                      "sub (a person's user_id, or a client) and act (RFC 8693 4.1), and a "
                                      "person's username (null before it was recorded).",
                                      "properties": {"sub": STR, "act": {"type": ["object", "null"]},
                                                     "username": STR}},
                       "grant_id": {"type": ["string", "null"], "description": "The grant whose approved payment "
                                    "(RFC 9396 charge authorization_details) it used; null for a charge under scope "
                                    "alone."}},
    },
    "ChargeList": {
        "type": "object", "required": ["object", "data", "has_more"],
        "properties": {"object": {"const": "list"}, "data": {"type": "array", "items": ref("Charge")},
                       "has_more": {"type": "boolean"}, "next_cursor": {"type": ["string", "null"]}},
    },
}
