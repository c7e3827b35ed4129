"""The OpenAPI operations of the Shared Signals transmitter (OpenID Shared Signals Framework 1.0 7, 8; RFC 8936):
its configuration document, the stream management API and the poll endpoint (surface `api`, problem+json)."""

from __future__ import annotations

from typing import Any

from authgate_cli.openapi.operations.components import NO_STORE_HEADERS, STR, json_response

# The bearer guard's refusals on the transmitter's endpoints (an ssf:manage token for <issuer>/ssf; no API key).
_BEARER = ("invalid_request", "unauthenticated", "invalid_token", "insufficient_scope", "invalid_dpop_proof",
           "use_dpop_nonce")
_BODY = ("malformed_json", "unsupported_media_type", "invalid_stream_request")
_STRINGS = {"type": "array", "items": STR}
_STREAM_ID = [{"name": "stream_id", "in": "query", "required": True, "schema": STR}]
_DELIVERY = {"type": "object", "required": ["method"], "properties": {
    "method": {"type": "string", "enum": ["urn:ietf:rfc:8935", "urn:ietf:rfc:8936"]},
    "endpoint_url": STR, "authorization_header": STR}}
_RECEIVER_SUPPLIED = {"events_requested": _STRINGS, "delivery": _DELIVERY, "description": STR}
_CONFIGURATION = {"type": "object", "required": ["stream_id", "iss", "aud", "delivery", "events_delivered"],
                  "properties": {"stream_id": STR, "iss": STR, "aud": STR, "events_supported": _STRINGS,
                                 "events_delivered": _STRINGS, "min_verification_interval": {"type": "integer"},
                                 **_RECEIVER_SUPPLIED}}
_STATUS = {"type": "object", "required": ["stream_id", "status"], "properties": {
    "stream_id": STR, "status": {"type": "string", "enum": ["enabled", "paused", "disabled"]}, "reason": STR}}
_SUBJECT_REQUEST = {"type": "object", "required": ["stream_id", "subject"], "properties": {
    "stream_id": STR, "subject": {"type": "object", "required": ["format"], "properties": {"format": STR}},
    "verified": {"type": "boolean"}}}
_CHANGE = {"type": "object", "required": ["stream_id"], "properties": {"stream_id": STR, **_RECEIVER_SUPPLIED}}


def _json_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _config(description: str) -> dict[str, Any]:
    return json_response(_CONFIGURATION, description, headers=NO_STORE_HEADERS)


OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("/.well-known/ssf-configuration", "GET"): {
        "summary": "The Shared Signals transmitter's configuration (SSF 1.0 7.1)", "surface": "api", "codes": (),
        "responses": {"200": json_response({"type": "object", "required": ["issuer"]}, "Transmitter metadata.")},
    },
    ("/ssf/streams", "POST"): {
        "summary": "Create the receiver's stream (SSF 1.0 8.1.1.1; scope ssf:manage)", "surface": "api",
        "requestBody": _json_body({"type": "object", "properties": _RECEIVER_SUPPLIED}),
        "codes": _BEARER + _BODY + ("stream_exists",), "responses": {"201": _config("The new stream.")},
    },
    ("/ssf/streams", "GET"): {
        "summary": "Read the receiver's stream, or list its streams without stream_id (SSF 1.0 8.1.1.2)",
        "surface": "api", "parameters": [{**_STREAM_ID[0], "required": False}],
        "codes": _BEARER + ("invalid_stream_request", "stream_not_found"),
        "responses": {"200": _config("The stream, or a list of the receiver's streams (one or none).")},
    },
    ("/ssf/streams", "PATCH"): {
        "summary": "Update the stream's receiver-supplied properties present (SSF 1.0 8.1.1.3)", "surface": "api",
        "requestBody": _json_body(_CHANGE), "codes": _BEARER + _BODY + ("stream_not_found",),
        "responses": {"200": _config("The updated stream.")},
    },
    ("/ssf/streams", "PUT"): {
        "summary": "Replace the stream's receiver-supplied properties (SSF 1.0 8.1.1.4)", "surface": "api",
        "requestBody": _json_body(_CHANGE), "codes": _BEARER + _BODY + ("stream_not_found",),
        "responses": {"200": _config("The replaced stream.")},
    },
    ("/ssf/streams", "DELETE"): {
        "summary": "Delete the stream, its subjects and waiting SETs (SSF 1.0 8.1.1.5)", "surface": "api",
        "parameters": _STREAM_ID, "codes": _BEARER + ("invalid_stream_request", "stream_not_found"),
        "responses": {"204": {"description": "Deleted."}},
    },
    ("/ssf/status", "GET"): {
        "summary": "Read the stream's status (SSF 1.0 8.1.2.1)", "surface": "api", "parameters": _STREAM_ID,
        "codes": _BEARER + ("invalid_stream_request", "stream_not_found"),
        "responses": {"200": json_response(_STATUS, "The status.", headers=NO_STORE_HEADERS)},
    },
    ("/ssf/status", "POST"): {
        "summary": "Enable, pause or disable the stream (SSF 1.0 8.1.2.2)", "surface": "api",
        "requestBody": _json_body(_STATUS), "codes": _BEARER + _BODY + ("stream_not_found",),
        "responses": {"200": json_response(_STATUS, "The new status.", headers=NO_STORE_HEADERS)},
    },
    ("/ssf/subjects/add", "POST"): {
        "summary": "Add a subject to the stream again (SSF 1.0 8.1.3.2; every user is one by default)",
        "surface": "api", "requestBody": _json_body(_SUBJECT_REQUEST),
        "codes": _BEARER + _BODY + ("stream_not_found",), "responses": {"200": {"description": "Added."}},
    },
    ("/ssf/subjects/remove", "POST"): {
        "summary": "Remove a subject from the stream (SSF 1.0 8.1.3.3)", "surface": "api",
        "requestBody": _json_body(_SUBJECT_REQUEST), "codes": _BEARER + _BODY + ("stream_not_found",),
        "responses": {"204": {"description": "Removed."}},
    },
    ("/ssf/verify", "POST"): {
        "summary": "Ask for a verification event on the stream (SSF 1.0 8.1.4.2)", "surface": "api",
        "requestBody": _json_body({"type": "object", "required": ["stream_id"],
                                   "properties": {"stream_id": STR, "state": STR}}),
        "codes": _BEARER + _BODY + ("stream_not_found", "rate_limited", "service_unavailable"),
        "responses": {"204": {"description": "The verification event is queued."}},
    },
    ("/ssf/poll", "POST"): {
        "summary": "Poll a poll stream's SETs and acknowledge them (RFC 8936 2)", "surface": "api",
        "requestBody": _json_body({"type": "object", "properties": {
            "maxEvents": {"type": "integer", "minimum": 0, "maximum": 100}, "returnImmediately": {"type": "boolean"},
            "ack": _STRINGS, "setErrs": {"type": "object"}}}),
        "codes": _BEARER + _BODY + ("stream_not_found",),
        "responses": {"200": json_response({"type": "object", "required": ["sets"], "properties": {
            "sets": {"type": "object", "additionalProperties": STR}, "moreAvailable": {"type": "boolean"}}},
            "The oldest waiting SETs, by jti.", headers=NO_STORE_HEADERS)},
    },
}
