"""The OpenAPI operations of what anyone may read (surface `api`): metadata (RFC 8414, OpenID Connect
Discovery 1.0, RFC 9728), the JWK Set (RFC 7517), problem types, this document, the pages' assets and a
tenant's SAML service provider metadata."""

from __future__ import annotations

from typing import Any

from authgate_cli.openapi.operations.components import STR, cors_options, json_response, ref

OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("/.well-known/jwks.json", "GET"): {
        "summary": "Published signing keys (RFC 7517): next, current and previous",
        "surface": "api", "codes": (), "responses": {"200": json_response(ref("Jwks"), "JWK Set.")},
    },
    ("/.well-known/oauth-authorization-server", "GET"): {
        "summary": "Authorization server metadata (RFC 8414)",
        "surface": "api", "codes": (), "responses": {"200": json_response(ref("Metadata"), "Metadata.")},
    },
    ("/.well-known/openid-configuration", "GET"): {
        "summary": "OpenID Provider metadata (OpenID Connect Discovery 1.0): the RFC 8414 document",
        "surface": "api", "codes": (), "responses": {"200": json_response(ref("Metadata"), "Metadata.")},
    },
    ("/.well-known/oauth-protected-resource", "GET"): {
        "summary": "The charges API's protected resource metadata (RFC 9728)",
        "surface": "api", "codes": (), "responses": {"200": json_response(ref("ResourceMetadata"), "Metadata.")},
    },
    ("/.well-known/oauth-protected-resource/charges", "GET"): {
        "summary": "The charges API's protected resource metadata at its RFC 9728 3.1 path",
        "surface": "api", "codes": (), "responses": {"200": json_response(ref("ResourceMetadata"), "Metadata.")},
    },
    ("/problems/{code}", "GET"): {
        "summary": "Documentation of one problem type (the `type` URI of problem+json)",
        "surface": "api", "parameters": [{"name": "code", "in": "path", "required": True, "schema": STR}],
        "codes": ("not_found",),
        "responses": {"200": {"description": "The code's page (HTML) or its catalogue entry (JSON).",
                              "content": {"text/html": {"schema": STR},
                                          "application/json": {"schema": {"type": "object"}}}}},
    },
    ("/openapi.json", "GET"): {
        "summary": "This OpenAPI document", "surface": "api", "codes": (),
        "responses": {"200": json_response({"type": "object"}, "OpenAPI 3.1 document.")},
    },
    ("/.well-known/openid-configuration", "OPTIONS"): cors_options("the metadata", "GET", "api"),
    ("/.well-known/jwks.json", "OPTIONS"): cors_options("the JWK Set", "GET", "api"),
    ("/.well-known/oauth-authorization-server", "OPTIONS"): cors_options("the metadata", "GET", "api"),
    ("/.well-known/oauth-protected-resource", "OPTIONS"): cors_options("the resource metadata", "GET", "api"),
    ("/.well-known/oauth-protected-resource/charges", "OPTIONS"): cors_options("the resource metadata", "GET",
                                                                                 "api"),
    ("/assets/authgate.css", "GET"): {
        "summary": "The one stylesheet of every HTML page (sign-in, authorization errors, problem pages)",
        "surface": "api", "codes": (),
        "responses": {"200": {"description": "CSS, cacheable for a year (pages link it with a content digest).",
                              "content": {"text/css": {"schema": STR}}}},
    },
    ("/assets/passkeys.js", "GET"): {
        "summary": "The pages' one script (WebAuthn create and get on the account page and the sign-in; the form "
                   "that brings an identity provider's answer back to the sign-in)",
        "surface": "api", "codes": (),
        "responses": {"200": {"description": "JavaScript, cacheable for a year (pages link it with a content digest).",
                              "content": {"text/javascript": {"schema": STR}}}},
    },
    ("/saml/{tenant}/metadata", "GET"): {
        "summary": "A tenant's SAML 2.0 service provider metadata, for its identity provider's administrator",
        "surface": "api", "parameters": [{"name": "tenant", "in": "path", "required": True, "schema": STR}],
        "codes": ("not_found",),
        "responses": {"200": {"description": "An EntityDescriptor with one SPSSODescriptor (saml-metadata-2.0-os).",
                              "content": {"application/samlmetadata+xml": {"schema": STR}}}},
    },
    ("/assets/icon.svg", "GET"): {
        "summary": "The icon every HTML page names (so that no browser asks for /favicon.ico)",
        "surface": "api", "codes": (),
        "responses": {"200": {"description": "SVG, cacheable for a year (pages link it with a content digest).",
                              "content": {"image/svg+xml": {"schema": STR}}}},
    },
}
