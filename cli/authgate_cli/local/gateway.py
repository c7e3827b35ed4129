"""API Gateway's own error responses, rendered from template.yaml's GatewayResponses as the gateway does.

A gateway-response template is not VTL: API Gateway only substitutes `$context.*` and
`$stageVariables.*` (an unknown variable becomes empty). A header value is a 'static' string or
an incoming request parameter (method.request.header|querystring|path.*, and their multivalue
forms) or a stage variable: AWS documents no other source for gateway responses (developer
guide, "x-amazon-apigateway-gateway-responses.responseParameters"), unlike method and
integration mappings, which may read context variables. Any other expression is refused here
(InvalidMappingExpression), as the API import may refuse it and take the stage down.
A response type without its own entry falls back to DEFAULT_4XX / DEFAULT_5XX by its default
status. The local emulator serves exactly what this returns, so local and deployed agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from authgate_cli.local import template

# Default status and message of each response type (API Gateway developer guide,
# "Gateway response types").
DEFAULTS: dict[str, tuple[int, str]] = {
    "ACCESS_DENIED": (403, "User is not authorized to access this resource"),
    "API_CONFIGURATION_ERROR": (500, "Internal server error"),
    "AUTHORIZER_CONFIGURATION_ERROR": (500, "Internal server error"),
    "AUTHORIZER_FAILURE": (500, "Internal server error"),
    "BAD_REQUEST_PARAMETERS": (400, "Missing required request parameters"),
    "BAD_REQUEST_BODY": (400, "Invalid request body"),
    "DEFAULT_4XX": (400, "Bad Request"),
    "DEFAULT_5XX": (500, "Internal server error"),
    "EXPIRED_TOKEN": (403, "The security token included in the request is expired"),
    "INTEGRATION_FAILURE": (504, "Internal server error"),
    "INTEGRATION_TIMEOUT": (504, "Endpoint request timed out"),
    "INVALID_API_KEY": (403, "Forbidden"),
    "INVALID_SIGNATURE": (403, "The request signature we calculated does not match the signature you provided"),
    "MISSING_AUTHENTICATION_TOKEN": (403, "Missing Authentication Token"),
    "QUOTA_EXCEEDED": (429, "Limit Exceeded"),
    "REQUEST_TOO_LARGE": (413, "Request Too Long"),
    "RESOURCE_NOT_FOUND": (404, "Not Found"),
    "THROTTLED": (429, "Too Many Requests"),
    "UNAUTHORIZED": (401, "Unauthorized"),
    "UNSUPPORTED_MEDIA_TYPE": (415, "Unsupported Media Type"),
    "WAF_FILTERED": (403, "Forbidden"),
}
_VARIABLE = re.compile(r"\$(context|stageVariables)\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)")


class UnknownResponseType(LookupError):
    pass


class InvalidMappingExpression(ValueError):
    """A gateway-response header mapped from a source API Gateway does not document there."""


# The sources a gateway response's parameters may map from (besides 'literals').
MAPPING_SOURCE = re.compile(
    r"^(method\.request\.(header|querystring|path|multivalueheader|multivaluequerystring)|stageVariables)"
    r"\.[A-Za-z0-9._$-]+$")


def mapping_errors(responses: Mapping[str, Any]) -> list[str]:
    """Every header mapping of `responses` whose source is not one API Gateway documents for them."""
    errors = []
    for response_type, entry in sorted(responses.items()):
        for name, expression in sorted(((entry.get("ResponseParameters") or {}).get("Headers") or {}).items()):
            value = str(expression)
            if not (len(value) >= 2 and value[0] == value[-1] == "'") and not MAPPING_SOURCE.match(value):
                errors.append(f"{response_type} header {name}: {value}")
    return errors


def gateway_responses(path: Path = template.TEMPLATE_PATH) -> dict[str, dict[str, Any]]:
    """The GatewayResponses of the template's REST API (AWS::Serverless::Api); a mapping API
    Gateway would refuse is refused here too."""
    for api in template.resources("AWS::Serverless::Api", path).values():
        responses = api.get("Properties", {}).get("GatewayResponses")
        if responses:
            errors = mapping_errors(responses)
            if errors:
                raise InvalidMappingExpression("Invalid mapping expression specified: " + "; ".join(errors))
            return dict(responses)
    return {}


def _resolve(value: Any, context: Mapping[str, str]) -> Any:
    """The few intrinsic functions a gateway-response template uses: Sub, If, Ref IssuerUrl (locally the
    configured issuer; there is no custom domain, so every other condition is false)."""
    if not isinstance(value, dict):
        return value
    if "Ref" in value:
        return context.get("issuer", "") if value["Ref"] == "IssuerUrl" else ""
    if "Fn::If" in value:
        condition, when_true, when_false = value["Fn::If"]
        chosen = when_true if condition == "HasIssuerUrl" and context.get("issuer") else when_false
        return _resolve(chosen, context)
    if "Fn::Sub" in value:
        spec = value["Fn::Sub"]
        text, variables = (spec, {}) if isinstance(spec, str) else (spec[0], spec[1])
        resolved = {k: str(_resolve(v, context)) for k, v in variables.items()}
        return re.sub(r"\$\{([A-Za-z0-9_.:]+)\}", lambda m: resolved.get(m.group(1), m.group(0)), text)
    raise ValueError(f"unsupported intrinsic in gateway response: {sorted(value)}")


def _substitute(text: str, context: Mapping[str, str], stage_variables: Mapping[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        source = context if m.group(1) == "context" else stage_variables
        return str(source.get(m.group(2), ""))

    return _VARIABLE.sub(value, text)


def _header_value(expression: str, context: Mapping[str, str], request_headers: Mapping[str, str],
                  stage_variables: Mapping[str, str]) -> str | None:
    if len(expression) >= 2 and expression[0] == expression[-1] == "'":
        return expression[1:-1]
    if not MAPPING_SOURCE.match(expression):
        raise InvalidMappingExpression(f"Invalid mapping expression specified: {expression}")
    if expression.startswith("method.request.header."):
        wanted = expression[len("method.request.header."):].lower()
        return next((v for k, v in request_headers.items() if k.lower() == wanted), None)
    if expression.startswith("stageVariables."):
        return stage_variables.get(expression[len("stageVariables."):])
    return None


def render_gateway_response(response_type: str, context: Mapping[str, str],
                            request_headers: Mapping[str, str] | None = None,
                            stage_variables: Mapping[str, str] | None = None,
                            path: Path = template.TEMPLATE_PATH) -> tuple[int, dict[str, str], str]:
    """(status, headers, body) of gateway response `response_type`, as API Gateway would send it.

    `context` holds $context variables by name ("extendedRequestId", "requestId", "domainName",
    "stage", "error.message", ...) plus "issuer" for the template's IssuerUrl parameter;
    error.messageString and error.responseType are derived when absent.
    """
    if response_type not in DEFAULTS:
        raise UnknownResponseType(response_type)
    default_status, default_message = DEFAULTS[response_type]
    responses = gateway_responses(path)
    entry = responses.get(response_type) or responses.get("DEFAULT_4XX" if default_status < 500 else "DEFAULT_5XX")
    ctx = {"error.responseType": response_type, "error.message": default_message, **context}
    if "issuer" not in ctx:
        # The template's IssuerUrl parameter; locally that is the configured issuer (AUTHGATE_ISSUER).
        ctx["issuer"] = _configured_issuer()
    ctx.setdefault("error.messageString", json.dumps(ctx["error.message"]))
    stage_vars = dict(stage_variables or {})
    if entry is None:  # no customisation: API Gateway's own JSON
        return default_status, {"Content-Type": "application/json"}, json.dumps({"message": ctx["error.message"]})
    status = int(entry.get("StatusCode") or default_status)
    headers: dict[str, str] = {}
    templates = entry.get("ResponseTemplates") or {}
    body = ""
    if templates:
        content_type, raw = next(iter(templates.items()))
        body = _substitute(str(_resolve(raw, ctx)), ctx, stage_vars)
        headers["Content-Type"] = content_type
    else:
        headers["Content-Type"] = "application/json"
        body = json.dumps({"message": ctx["error.message"]})
    for name, expression in ((entry.get("ResponseParameters") or {}).get("Headers") or {}).items():
        value = _header_value(str(expression), ctx, request_headers or {}, stage_vars)
        if value is not None:
            headers[name] = value
    return status, headers, body


def _configured_issuer() -> str:
    from authgate.settings import SettingsError, get_settings

    try:
        return get_settings().issuer
    except SettingsError:
        return ""
