"""Step-up (RFC 6750 3.1, RFC 9728 5.1): a 403 insufficient_scope names the scopes the operation needs and the
resource's metadata, in every error shape; a new authorization request for the larger set then works."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate_cli.check.reading import parse_challenge
from tests.demo import ISSUER, SPA_REDIRECT, Demo, body, headers
from tests.functional.authorize_support import Browser, page_of, redirect_of, web_params
from tests.functional.token_support import TokenClient, body_of

CHARGE = {"amount": 1250, "currency": "usd", "description": "Coffee"}
DETAIL = "The access token lacks the scope charges:write."
METADATA = f"{ISSUER}/.well-known/oauth-protected-resource/charges"
CHALLENGE = (f'Bearer realm="api", error="insufficient_scope", error_description="{DETAIL}", scope="charges:write", '
             f'resource_metadata="{METADATA}", DPoP algs="ES256 EdDSA RS256 PS256", resource_metadata="{METADATA}"')


def shapes(request_id: str) -> dict[str, tuple[str, Any]]:
    problem_type = f"{ISSUER}/problems/insufficient_scope"
    return {
        "problem": ("application/problem+json", {
            "type": problem_type, "title": "Insufficient scope", "status": 403, "detail": DETAIL,
            "instance": "/charges", "code": "insufficient_scope", "traceId": request_id}),
        "jsonapi": ("application/vnd.api+json", {"jsonapi": {"version": "1.1"}, "errors": [{
            "status": "403", "code": "insufficient_scope", "title": "Insufficient scope",
            "links": {"type": problem_type}, "meta": {"traceId": request_id}, "detail": DETAIL}]}),
        "legacy-a": ("application/json", {"error": "insufficient_scope", "message": DETAIL,
                                          "code": "insufficient_scope", "status": 403}),
        "legacy-b": ("application/json", {"success": False, "errors": [
            {"field": "", "message": DETAIL, "code": "insufficient_scope"}]}),
    }


@pytest.mark.parametrize(("client", "accept", "shape"), [
    ("demo-reader", None, "problem"),
    ("demo-reader", "application/vnd.api+json", "jsonapi"),
    ("demo-legacy-a", None, "legacy-a"),
    ("demo-legacy-b", None, "legacy-b"),
])
def test_insufficient_scope_names_the_scope_and_the_metadata_in_every_shape(
        demo: Demo, invoke: Any, client: str, accept: str | None, shape: str) -> None:
    extra = {"Accept": accept} if accept else {}
    result = invoke("charges", demo.event("POST", body=CHARGE, client=client, scope="charges:read",
                                          headers={"Idempotency-Key": "step-up-1", **extra}))
    request_id = headers(result)["x-request-id"]
    media, expected = shapes(request_id)[shape]
    assert (result["statusCode"], result["multiValueHeaders"], body(result)) == (
        403, {"Content-Type": [media], "Vary": ["Accept"], "WWW-Authenticate": [CHALLENGE],
              "x-request-id": [request_id]}, expected)
    scheme, params = parse_challenge(headers(result)["www-authenticate"])
    assert (scheme, params["scope"], params["resource_metadata"]) == ("Bearer", "charges:write", METADATA)


def spa_token(browser: Browser, tokens: TokenClient, scope: str) -> str:
    page = page_of(browser.get(web_params(client_id="demo-spa", redirect_uri=SPA_REDIRECT, scope=scope)))
    assert page.status == 200, page.body[:300]
    code = redirect_of(browser.submit(page)).one("code")
    issued = body_of(tokens.exchange(code, client_id="demo-spa", redirect_uri=SPA_REDIRECT))
    assert issued["scope"] == scope
    return str(issued["access_token"])


def post_charge(demo: Demo, invoke: Any, token: str, key: str) -> dict[str, Any]:
    return invoke("charges", demo.event("POST", body=CHARGE, client=None,
                                        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key}))


@pytest.mark.slow
def test_a_client_steps_up_with_a_new_authorization_request(demo: Demo, browser: Browser, tokens: TokenClient,
                                                            invoke: Any) -> None:
    """demo-spa, registered once: read-only token, 403 naming charges:write, a new request for both, 201."""
    refused = post_charge(demo, invoke, spa_token(browser, tokens, "charges:read"), "step-up-a")
    assert refused["statusCode"] == 403
    needed = parse_challenge(headers(refused)["www-authenticate"])[1]["scope"]
    metadata = json.loads(invoke("jwks", _get(METADATA.removeprefix(ISSUER)))["body"])
    # What an MCP client does: the scopes it held, plus those the challenge names, within scopes_supported.
    wanted = " ".join(dict.fromkeys(["charges:read", *needed.split()]))
    assert set(wanted.split()) <= set(metadata["scopes_supported"])
    created = post_charge(demo, invoke, spa_token(browser, tokens, wanted), "step-up-b")
    assert (created["statusCode"], body(created)["amount"]) == (201, 1250)


def _get(path: str) -> dict[str, Any]:
    from authgate_cli.local.events import HttpRequest, build_event

    return build_event(HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")]), resource=path, path_params=None)
