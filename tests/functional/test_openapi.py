"""GET /openapi.json: the committed document is what build.py makes from template.yaml and the
catalogue, it names exactly the template's routes, it is valid OpenAPI 3.1, and it is served."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from authgate.errors.catalogue import catalogue
from authgate_cli.local.events import HttpRequest, build_event
from authgate_cli.local.template import api_routes
from authgate_cli.openapi.build import DOCUMENT_PATH, build_document, render

ISSUER = "http://127.0.0.1:3000"


def test_committed_document_is_the_generated_one() -> None:
    # On failure: python -m authgate_cli.openapi.build
    assert DOCUMENT_PATH.read_text(encoding="utf-8") == render(build_document())


def test_paths_and_methods_are_exactly_the_templates_routes() -> None:
    document = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))
    documented = {(path, method.upper()) for path, item in document["paths"].items() for method in item}
    routed = {(r.path, r.method) for r in api_routes() if r.method != "ANY"}
    assert documented == routed
    # Every resource the gateway routes (bar the catch-alls) is documented.
    resources = {r.path for r in api_routes()} - {"/", "/{proxy+}"}
    assert set(document["paths"]) == resources


@pytest.mark.slow
def test_document_is_valid_openapi_3_1() -> None:
    from openapi_spec_validator import validate

    validate(json.loads(DOCUMENT_PATH.read_text(encoding="utf-8")))


def test_every_error_response_documents_its_shapes_and_known_codes() -> None:
    document = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))
    codes = catalogue()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            errors = {int(s): r for s, r in operation["responses"].items() if int(s) >= 400}
            assert {413, 429, 500, 502, 504} <= set(errors), (method, path)
            for status, response in errors.items():
                named = [c.strip("` ") for c in response["description"].removeprefix("Error codes: ")
                         .rstrip(".").split(",")]
                assert all(codes[c].status == status for c in named), (method, path, status, named)
                assert "x-request-id" in response["headers"]
                media = set(response["content"])
                if path.startswith(("/oauth/authorize", "/oauth/logout", "/oauth/forgot-password",
                                     "/oauth/reset-password", "/oauth/account", "/oauth/approve", "/console")) or path in (
                        "/oauth/device", "/oauth/federation/callback", "/oauth/federation/logged-out", "/saml/{tenant}/acs",
                        "/saml/{tenant}/slo"):
                    assert "text/html" in media
                elif path.startswith("/oauth/"):
                    assert "application/json" in media
                else:
                    assert media == {"application/problem+json", "application/vnd.api+json", "application/json"}
                if status in (429, 503):
                    assert "Retry-After" in response["headers"], (method, path, status)


def test_served_by_the_jwks_function_with_this_apis_url(aws: None, invoke: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
    request = HttpRequest("GET", "/openapi.json", "", [("Host", "127.0.0.1:3000")], b"")
    result = invoke("jwks", build_event(request, resource="/openapi.json", path_params=None))
    assert result["statusCode"] == 200
    headers = {k: v[-1] for k, v in result["multiValueHeaders"].items()}
    assert headers["Content-Type"] == "application/json"
    assert headers["Cache-Control"] == "public, max-age=300"
    body = json.loads(result["body"])
    assert body == {**json.loads(DOCUMENT_PATH.read_text(encoding="utf-8")), "servers": [{"url": ISSUER}]}


def test_other_method_is_405_with_allow(aws: None, invoke: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
    request = HttpRequest("DELETE", "/openapi.json", "", [("Host", "127.0.0.1:3000")], b"")
    result = invoke("jwks", build_event(request, resource="/openapi.json", path_params=None))
    assert (result["statusCode"], result["multiValueHeaders"]["Allow"]) == (405, ["GET"])
