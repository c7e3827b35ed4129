"""RFC 9728 protected resource metadata of the charges API, and RFC 8707 resource indicators."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import ISSUER
from tests.functional.token_support import TokenClient, assert_error, body_of, claims_of

DOCUMENT = {
    "resource": f"{ISSUER}/charges",
    "authorization_servers": [ISSUER],
    "scopes_supported": ["charges:read", "charges:write", "charges:refund"],
    "bearer_methods_supported": ["header"],
    "resource_name": "authgate charges API",
    "resource_documentation": f"{ISSUER}/openapi.json",
    "dpop_signing_alg_values_supported": ["ES256", "EdDSA", "RS256", "PS256"],
    "dpop_bound_access_tokens_required": False,
    "authorization_details_types_supported": ["charge"],
}


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource",
                                  "/.well-known/oauth-protected-resource/charges"])
def test_resource_metadata_document(aws: None, invoke: Any, path: str) -> None:
    request = HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")])
    result = invoke("jwks", build_event(request, resource=path, path_params=None))
    headers = {k: ", ".join(v) for k, v in result["multiValueHeaders"].items()}
    assert headers.pop("x-request-id")
    assert (result["statusCode"], headers, json.loads(result["body"])) == (
        200, {"Content-Type": "application/json", "Cache-Control": "public, max-age=3600", "Vary": "Origin"},
        DOCUMENT)


def test_the_challenges_resource_metadata_url_is_served(aws: None, invoke: Any) -> None:
    """The URL every /charges challenge names (RFC 9728 5.1) answers with the document whose resource it protects."""
    from authgate.tokens.jwt_profile import resource_metadata_url

    url = resource_metadata_url(ISSUER)
    path = url.removeprefix(ISSUER)
    result = invoke("jwks", build_event(HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")]),
                                        resource=path, path_params=None))
    assert json.loads(result["body"])["resource"] == f"{ISSUER}/charges"


CC = [("grant_type", "client_credentials")]


@pytest.mark.parametrize("resource", [f"{ISSUER}/charges", f"{ISSUER}/charges/"])
def test_token_for_the_charges_resource(tokens: TokenClient, resource: str) -> None:
    from tests.demo import SECRETS
    from tests.functional.token_support import basic

    result = tokens.post(CC + [("resource", resource)], auth=basic("demo-service", SECRETS["demo-service"]))
    assert result["statusCode"] == 200
    assert claims_of(body_of(result)["access_token"])["aud"] == f"{ISSUER}/charges"


@pytest.mark.parametrize(("resource", "description", "code"), [
    ("https://other.example/api", ("The resource https://other.example/api is not registered with this "
                                   "authorization server."), "unknown_resource"),
    ("/charges", "The resource parameter must be an absolute URI without a fragment (RFC 8707 2).", None),
    (f"{ISSUER}/charges#x", "The resource parameter must be an absolute URI without a fragment (RFC 8707 2).", None),
])
def test_an_unknown_or_malformed_resource_is_invalid_target(tokens: TokenClient, resource: str,
                                                            description: str, code: str | None) -> None:
    from tests.demo import SECRETS
    from tests.functional.token_support import basic

    assert_error(tokens.post(CC + [("resource", resource)], auth=basic("demo-service", SECRETS["demo-service"])),
                 400, "invalid_target", description, code=code)


def test_a_code_for_a_resource_gives_a_token_for_it_and_no_other(tokens: TokenClient) -> None:
    from authgate.stores.codes import CodeStore
    from tests.demo import CHALLENGE, VERIFIER, WEB_REDIRECT

    def code() -> str:
        return CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=WEB_REDIRECT,
                                  code_challenge=CHALLENGE, code_challenge_method="S256", scope="charges:read",
                                  subject="alice", resource=f"{ISSUER}/charges")

    fields = [("grant_type", "authorization_code"), ("redirect_uri", WEB_REDIRECT), ("code_verifier", VERIFIER)]
    ok = tokens.as_client("demo-web", fields + [("code", code())])
    assert claims_of(body_of(ok)["access_token"])["aud"] == f"{ISSUER}/charges"
