"""Every published application error code, as a type (GENERATED: do not edit).

Written by scripts/generate_error_codes.py from catalogue.json; a code that is not in the
catalogue fails the type check wherever an ApiError is raised with it.
"""

from __future__ import annotations

from typing import Literal

Code = Literal[
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "unsupported_response_type",
    "invalid_scope",
    "access_denied",
    "server_error",
    "temporarily_unavailable",
    "invalid_token",
    "insufficient_scope",
    "unauthenticated",
    "not_found",
    "method_not_allowed",
    "not_acceptable",
    "unsupported_media_type",
    "payload_too_large",
    "malformed_json",
    "validation_failed",
    "invalid_idempotency_key",
    "idempotency_key_reused",
    "idempotency_request_in_progress",
    "invoice_locked",
    "invoice_already_paid",
    "currency_not_enabled",
    "rate_limited",
    "quota_exceeded",
    "invalid_api_key",
    "forbidden",
    "internal_error",
    "bad_gateway",
    "service_unavailable",
    "gateway_timeout",
    "invoice_not_found",
    "concurrent_update",
    "unknown_client",
    "client_of_another_environment",
    "invalid_request_uri",
    "redirect_uri_mismatch",
    "origin_not_allowed",
    "invalid_dpop_proof",
    "use_dpop_nonce",
    "invalid_target",
    "unknown_resource",
    "resource_not_allowed",
]
