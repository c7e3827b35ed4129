"""template.yaml GatewayResponses, rendered as API Gateway would: valid problem+json, status = body status."""

from __future__ import annotations

import json

import pytest

from authgate.errors.catalogue import catalogue
from authgate_cli.check import read_error
from authgate_cli.local.gateway import (
    DEFAULTS,
    InvalidMappingExpression,
    gateway_responses,
    mapping_errors,
    render_gateway_response,
)
from tests.demo import ISSUER

CONTEXT = {"extendedRequestId": "Xyz1AbCdIAMEb-A=", "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
           "domainName": "abc123.execute-api.us-east-1.amazonaws.com", "stage": "production",
           "issuer": ""}  # deployed without IssuerUrl: the stage URL is the base
REQUIRED = ["DEFAULT_4XX", "DEFAULT_5XX", "MISSING_AUTHENTICATION_TOKEN", "THROTTLED", "QUOTA_EXCEEDED",
            "INTEGRATION_TIMEOUT", "INTEGRATION_FAILURE", "BAD_REQUEST_BODY", "BAD_REQUEST_PARAMETERS",
            "INVALID_API_KEY", "ACCESS_DENIED", "UNAUTHORIZED", "API_CONFIGURATION_ERROR"]


def test_every_required_type_is_in_the_template():
    assert set(REQUIRED) <= set(gateway_responses())
    assert set(gateway_responses()) <= set(DEFAULTS)


@pytest.mark.parametrize("response_type", sorted(DEFAULTS))
def test_each_renders_to_a_valid_problem(response_type):
    status, headers, body = render_gateway_response(response_type, CONTEXT)
    problem = json.loads(body)
    assert problem["status"] == status
    # No x-request-id: a gateway response cannot map a context variable to a header. The id is
    # the body's traceId and API Gateway's own x-amz-apigw-id (added to every response).
    assert "x-request-id" not in headers and problem["traceId"] == CONTEXT["extendedRequestId"]
    headers = {**headers, "x-amz-apigw-id": CONTEXT["extendedRequestId"]}
    assert problem["type"] == f"https://{CONTEXT['domainName']}/production/problems/{problem['code']}"
    assert problem["code"] in catalogue()
    assert problem["title"] == catalogue()[problem["code"]].title
    assert headers["Content-Type"] == "application/problem+json"
    reading = read_error(status, headers, body)
    assert (reading.defects, reading.shape, reading.code) == ((), "problem", problem["code"])


def test_missing_route_is_a_404_not_found_with_the_issuer_when_configured():
    assert render_gateway_response("MISSING_AUTHENTICATION_TOKEN", {**CONTEXT, "issuer": "https://auth.example.test"}) == (
        404, {"Content-Type": "application/problem+json", "Vary": "Accept",
              "Access-Control-Allow-Origin": "*",
              "Access-Control-Expose-Headers": "x-request-id, x-amz-apigw-id, Retry-After, WWW-Authenticate"},
        ('{"type":"https://auth.example.test/problems/not_found","title":"Not found","status":404,'
        '"detail":"No route matches this method and path.","code":"not_found","traceId":"Xyz1AbCdIAMEb-A="}'))


@pytest.mark.parametrize("response_type, code, retry_after", [("THROTTLED", "rate_limited", "1"),
                                                              ("QUOTA_EXCEEDED", "quota_exceeded", "86400")])
def test_429s_carry_retry_after(response_type, code, retry_after):
    status, headers, body = render_gateway_response(response_type, CONTEXT)
    assert (status, headers["Retry-After"], json.loads(body)["code"]) == (429, retry_after, code)


@pytest.mark.parametrize("response_type", sorted(DEFAULTS))
def test_each_is_readable_by_a_browser_on_any_origin(response_type):
    """A browser client refused by the gateway (a throttled /oauth/token, say) reads the status,
    the body and Retry-After instead of failing CORS: no credentials, nothing about the caller."""
    _, headers, _ = render_gateway_response(response_type, CONTEXT, {"Origin": "https://spa.example"})
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert headers["Access-Control-Expose-Headers"] == "x-request-id, x-amz-apigw-id, Retry-After, WWW-Authenticate"
    assert "Access-Control-Allow-Credentials" not in headers


def test_unauthorized_challenges():
    status, headers, _ = render_gateway_response("UNAUTHORIZED", CONTEXT)
    assert (status, headers["WWW-Authenticate"]) == (401, 'Bearer realm="api"')


def test_default_4xx_carries_the_gateway_message_json_quoted():
    status, _, body = render_gateway_response("DEFAULT_4XX", {**CONTEXT, "error.message": 'Bad "thing"'})
    assert (status, json.loads(body)["detail"]) == (400, 'Bad "thing"')


def test_locally_the_configured_issuer_is_the_base():
    context = {k: v for k, v in CONTEXT.items() if k != "issuer"}
    _, _, body = render_gateway_response("INVALID_API_KEY", context)
    assert json.loads(body)["type"] == f"{ISSUER}/problems/invalid_api_key"


def test_every_header_of_every_gateway_response_maps_from_a_source_aws_documents_for_them():
    assert mapping_errors(gateway_responses()) == []
    for entry in gateway_responses().values():
        assert entry["ResponseParameters"]["Headers"]  # the check saw headers, not nothing


def test_a_context_variable_in_a_gateway_response_header_is_refused_as_the_api_import_would(tmp_path):
    from authgate_cli.local import template

    source = template.TEMPLATE_PATH.read_text(encoding="utf-8")
    planted = source.replace("""              Vary: "'Accept'"\n""",
                             """              Vary: "'Accept'"\n              x-request-id: "context.extendedRequestId"\n""", 1)
    assert planted != source
    (tmp_path / "template.yaml").write_text(planted, encoding="utf-8")
    with pytest.raises(InvalidMappingExpression, match="DEFAULT_4XX header x-request-id: context.extendedRequestId"):
        gateway_responses(tmp_path / "template.yaml")
    # Request parameters, stage variables and literals are what AWS documents there.
    assert mapping_errors({"X": {"ResponseParameters": {"Headers": {
        "a": "method.request.header.Accept", "b": "method.request.querystring.q", "c": "stageVariables.v",
        "d": "'literal'", "e": "context.requestId", "f": "integration.response.header.x"}}}}) == [
        "X header e: context.requestId", "X header f: integration.response.header.x"]
