"""The rules `authgate check` holds a deployment to, each with a stable name (docs/check.md).

A finding cites one rule by name; the name never changes once published, so dashboards and CI
filters can match on it. `cite` names the contract section (7.4 reading rules, 7.5 headers,
7.6 idempotency, 8 limits) and the RFC text the rule restates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from authgate_cli.check import reading

Severity = Literal["defect", "warning"]


@dataclass(frozen=True)
class Rule:
    name: str
    summary: str
    cite: str
    severity: Severity = "defect"


_RULES = (
    # Reading any error (contract 7.4).
    Rule("error-body-readable", "An error has a body in a documented shape (problem details, JSON:API, "
         "legacy A/B, OAuth JSON) or, on a bare 401, a WWW-Authenticate challenge.", "contract 7.4 rule 1"),
    Rule("success-false-is-failure", "A 2xx never says success:false; a failure has a 4xx or 5xx status.",
         "contract 7.4 rule 2"),
    Rule("body-status-matches", "A status member in the body equals the HTTP status.",
         "contract 7.4 rule 3; RFC 9457 3.1.2"),
    Rule("problem-media-type", "A problem-details body is sent as application/problem+json.",
         "contract 7.4 rule 4; RFC 9457 3"),
    Rule("no-html-on-api-route", "No HTML error page on an API route (only browser routes may send one).",
         "contract 7.4 rule 4"),
    Rule("code-present", "Every error body carries a stable application code clients can branch on.",
         "contract 7.4 rule 6"),
    Rule("client-error-not-5xx", "A request the client got wrong is answered 4xx, never 5xx.",
         "RFC 9110 15.5, 15.6"),
    Rule("expected-status", "The status is the one the contract or RFC gives for this request.",
         "the probe's own citation (RFC 9110 15.5, RFC 6749 5.2, ...)"),
    Rule("expected-code", "The error code is the one the contract or RFC gives for this request.",
         "the probe's own citation (contract 7.2, 7.3, ...)"),
    # Headers that accompany errors (contract 7.5).
    Rule("request-id-present", "Every error carries a correlation header (x-request-id, x-correlation-id, "
         "cf-ray or traceparent).", "contract 7.5"),
    Rule("request-id-echoed", "A well-formed x-request-id sent by the client comes back unchanged.",
         "contract 7.5; authgate docs/error-responses.md, Headers"),
    Rule("trace-id-joins", "The body's traceId (JSON:API meta.traceId) equals the x-request-id header.",
         "contract 7.5"),
    Rule("challenge-on-401", "A 401 carries WWW-Authenticate.", "contract 7.5; RFC 9110 11.6.1, 15.5.2"),
    Rule("allow-on-405", "A 405 carries Allow, listing the methods the resource takes and not the refused one.",
         "contract 7.5; RFC 9110 10.2.1, 15.5.6"),
    Rule("retry-after-on-429-503", "A 429 or 503 carries Retry-After.",
         "contract 7.5, 8 rule 1; RFC 6585 4; RFC 9110 15.6.4"),
    Rule("retry-after-valid", "Retry-After is delay-seconds or an HTTP-date.", "RFC 9110 10.2.3"),
    Rule("content-type-present", "An error with a body says what it is in Content-Type.",
         "contract 7.5; RFC 9110 8.3"),
    # Problem types.
    Rule("problem-type-absolute", "A problem type (and an OAuth error_uri) is an absolute URI.",
         "RFC 9457 3.1.1; RFC 6749 5.2"),
    Rule("problem-type-resolves", "An http(s) problem type or error_uri answers 200 with documentation.",
         "RFC 9457 3.1.1; RFC 6749 5.2"),
    # OAuth (RFC 6749, 6750, 8414, 7517, 9068).
    Rule("oauth-error-shape", "An OAuth endpoint's error is JSON with a registered error code.",
         "contract 7.2; RFC 6749 5.2"),
    Rule("oauth-error-status", "OAuth token-endpoint errors are 400, invalid_client 401.", "RFC 6749 5.2"),
    Rule("oauth-client-challenge", "invalid_client after Basic authentication is 401 with a Basic challenge.",
         "RFC 6749 5.2"),
    Rule("bearer-challenge", "A bearer route's 401/403 challenge is Bearer, with the RFC 6750 error code "
         "(none when no credentials were sent).", "contract 5 rule 2, 7.3; RFC 6750 3, 3.1"),
    Rule("bearer-rejects-bad-tokens", "Garbage, expired and foreign-signed tokens are refused with 401 "
         "invalid_token.", "contract 5 rule 5, 7.3; RFC 6750 3.1; RFC 9068 4"),
    Rule("metadata-document", "Authorization server metadata is a JSON object with issuer, token_endpoint, "
         "jwks_uri and response_types_supported.", "RFC 8414 2, 3.2"),
    Rule("metadata-issuer", "The metadata issuer equals the base URL it was fetched from.", "RFC 8414 3.3"),
    Rule("metadata-absolute-endpoints", "Every endpoint and URI in the metadata is an absolute URL "
         "(https when the issuer is).", "RFC 8414 2"),
    Rule("metadata-self-registration", "client_id_metadata_document_supported, when present, is a boolean; "
         "a server that advertises it also advertises token_endpoint_auth_methods_supported with none or "
         "private_key_jwt.", "draft-ietf-oauth-client-id-metadata-document 6; RFC 8414 2"),
    Rule("metadata-grants", "The delegation grants are advertised consistently: the device_code grant with "
         "device_authorization_endpoint (and not one without the other), the ID-JAG grant profile with the "
         "jwt-bearer grant; each of the device_code, jwt-bearer and token-exchange grants advertised is served "
         "(a request without client credentials is 401 invalid_client, not unsupported_grant_type), and so is "
         "the device authorization endpoint.",
         "RFC 8414 2; RFC 8628 3.1, 4; RFC 8693 2.1; draft-ietf-oauth-identity-assertion-authz-grant"),
    Rule("openid-configuration", "The OpenID Provider metadata, when served, is a JSON object with the members "
         "OpenID Connect Discovery 3 requires, issuer equal to the base URL, RS256 among the ID token algorithms, "
         "and the same members as the RFC 8414 metadata.", "OpenID Connect Discovery 3, 4; RFC 8414 2"),
    Rule("jwks-document", "The JWKS is JSON with a non-empty keys array; every key has kty and a unique kid.",
         "RFC 7517 4.1, 4.5, 5"),
    Rule("jwks-public-only", "The JWKS holds public keys only: no private or symmetric key members.",
         "RFC 7517 9.3; RFC 7518 6.2.2, 6.3.2, 6.4"),
    Rule("token-response", "A token response is 200 JSON with access_token and token_type Bearer, "
         "Cache-Control: no-store and Pragma: no-cache.", "RFC 6749 5.1"),
    Rule("access-token-verifies", "An issued access token is an at+jwt signed by a published key, "
         "with this issuer.", "contract 5 rule 5; RFC 9068 2.1, 4"),
    Rule("insufficient-scope", "A valid token without the route's scope gets 403 with error=\"insufficient_scope\".",
         "contract 7.3; RFC 6750 3.1"),
    Rule("step-up-challenge", "The insufficient_scope challenge names the scopes the operation needs (scope=) "
         "and the resource's metadata (resource_metadata=), so a client can ask for them without help.",
         "RFC 6750 3.1; RFC 9728 5.1; MCP authorization, scope challenges"),
    Rule("step-up-authentication-challenge", "A charge above the strong-authentication threshold with a user's "
         "password-only token gets 401 with error=\"insufficient_user_authentication\" and a challenge a client can "
         "act on: acr_values= (space-separated values) and/or max_age= (seconds, digits only).", "RFC 9470 3"),
    # Idempotency and limits (contract 7.6, 8).
    Rule("idempotent-replay", "A retry with the same Idempotency-Key returns the same resource, not a new one.",
         "contract 7.6; draft-ietf-httpapi-idempotency-key-header 2.6"),
    Rule("idempotency-key-reuse", "The same Idempotency-Key with another body is refused with 422.",
         "draft-ietf-httpapi-idempotency-key-header 2.7"),
    Rule("ratelimit-fields", "Responses of a rate-limited route carry the quota fields (RateLimit, "
         "RateLimit-Policy).", "contract 8 rule 3; draft-ietf-httpapi-ratelimit-headers"),
    # Negative requests built from an OpenAPI document.
    Rule("negative-request-refused", "A request the API cannot accept (wrong method, malformed body, bad "
         "media type, no credentials) is refused with a 4xx.", "RFC 9110 15.5", "warning"),
    Rule("status-documented", "The status is one the OpenAPI operation documents (or a default/NXX range).",
         "OpenAPI 3 Responses Object", "warning"),
    Rule("answers", "Every request gets an HTTP answer within the timeout.", "contract 7.4 rule 1"),
)

RULES: dict[str, Rule] = {rule.name: rule for rule in _RULES}

# read_error's defect names -> the rule each breaks.
DEFECT_RULES: dict[str, str] = {
    reading.UNPARSEABLE: "error-body-readable",
    reading.SUCCESS_FALSE_WITH_2XX: "success-false-is-failure",
    reading.STATUS_MISMATCH: "body-status-matches",
    reading.PROBLEM_WITHOUT_MEDIA_TYPE: "problem-media-type",
    reading.HTML_ON_API_ROUTE: "no-html-on-api-route",
    reading.MISSING_CODE: "code-present",
    reading.NO_REQUEST_ID: "request-id-present",
    reading.TRACE_ID_MISMATCH: "trace-id-joins",
    reading.NO_CHALLENGE: "challenge-on-401",
    reading.NO_ALLOW: "allow-on-405",
    reading.NO_RETRY_AFTER: "retry-after-on-429-503",
    reading.BAD_RETRY_AFTER: "retry-after-valid",
}
