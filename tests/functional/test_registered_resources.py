"""Registered resources (RFC 8707) at the authorization, PAR, token and introspection endpoints: whole responses."""

from __future__ import annotations

from typing import Any

import pytest

from tests.demo import ALICE_ID, ISSUER, SECRETS, VERIFIER, WEB_REDIRECT, Demo, body, headers
from tests.functional.authorize_support import Browser, page_of, redirect_of, web_params
from tests.functional.resource_support import MCP, introspect, register
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    assert_ok,
    basic,
    body_of,
    claims_of,
    grant,
    push,
    pushed_uri,
)

OTHER = "https://other.example.com/api"
CC = [("grant_type", "client_credentials")]


def cc(tokens: TokenClient, client: str = "demo-service", **fields: str) -> dict[str, Any]:
    return tokens.post(CC + list(fields.items()), auth=basic(client, SECRETS[client]))


# --------------------------------------------------------------------------- token endpoint

def test_a_registered_resource_gets_a_token_for_it(tokens: TokenClient) -> None:
    register()
    result = cc(tokens, resource=MCP, scope="mcp:read")
    token = body_of(result)
    assert (result["statusCode"], set(token), token["scope"], token["token_type"]) == (
        200, {"access_token", "token_type", "expires_in", "scope"}, "mcp:read", "Bearer")
    claims = claims_of(token["access_token"])
    assert (claims["aud"], claims["scope"], claims["client_id"]) == (MCP, "mcp:read", "demo-service")


def test_no_scope_means_the_resources_scopes(tokens: TokenClient) -> None:
    register()
    assert body_of(cc(tokens, resource=MCP))["scope"] == "mcp:read mcp:write"


@pytest.mark.parametrize(("scope", "description"), [
    ("charges:read", "The scope 'charges:read' is unknown."),
    ("mcp:read mcp:admin", "The scope 'mcp:admin' is unknown."),
])
def test_scopes_are_the_resources_own(tokens: TokenClient, scope: str, description: str) -> None:
    register()
    assert_error(cc(tokens, resource=MCP, scope=scope), 400, "invalid_scope", description)


def test_a_resource_scope_is_unknown_to_the_charges_api(tokens: TokenClient) -> None:
    register()
    assert_error(cc(tokens, scope="mcp:read"), 400, "invalid_scope", "The scope 'mcp:read' is unknown.")


def test_client_credentials_reach_a_registered_resource_only_through_a_grant(tokens: TokenClient) -> None:
    """RFC 6749 4.4, RFC 9700 2.3: a new resource is not open to every confidential client of its tenants."""
    register(granted_to=())
    assert_error(cc(tokens, resource=MCP), 400, "invalid_scope", "No scope is available to this client.")
    assert_error(cc(tokens, resource=MCP, scope="mcp:read"), 400, "invalid_scope",
                 "The scope 'mcp:read' is not allowed for this client.")
    # Not even for a client registered with the scope's name: grants are per resource.
    assert_error(cc(tokens, "demo-reader", resource=MCP), 400, "invalid_scope", "No scope is available to this client.")
    grant("demo-service", MCP, ("mcp:read",))
    assert body_of(cc(tokens, resource=MCP))["scope"] == "mcp:read"
    assert_error(cc(tokens, resource=MCP, scope="mcp:write"), 400, "invalid_scope",
                 "The scope 'mcp:write' is not allowed for this client.")


def test_a_grant_limits_a_client_to_those_scopes(tokens: TokenClient) -> None:
    register(scopes=("charges:read", "reports:read"), granted_to=())
    grant("demo-reader", MCP, ("charges:read",))
    assert body_of(cc(tokens, "demo-reader", resource=MCP))["scope"] == "charges:read"
    assert_error(cc(tokens, "demo-reader", resource=MCP, scope="reports:read"), 400, "invalid_scope",
                 "The scope 'reports:read' is not allowed for this client.")


def test_the_tenants_forbidden_scopes_still_apply(tokens: TokenClient) -> None:
    register(scopes=("charges:refund", "mcp:read"))
    assert_error(cc(tokens, resource=MCP, scope="charges:refund"), 400, "invalid_scope",
                 "The scope 'charges:refund' is forbidden by the tenant.")


def test_an_unregistered_resource_is_unknown_resource(tokens: TokenClient) -> None:
    register()
    assert_error(cc(tokens, resource=OTHER), 400, "invalid_target",
                 f"The resource {OTHER} is not registered with this authorization server.", code="unknown_resource")


def test_a_resource_of_other_tenants_is_not_allowed(tokens: TokenClient) -> None:
    register(tenants=("acme",), granted_to=("demo-service", "acme-service"))
    assert_error(cc(tokens, resource=MCP), 400, "invalid_target",
                 f"The resource {MCP} is not available to this tenant.", code="resource_not_allowed")
    assert body_of(cc(tokens, "acme-service", resource=MCP, scope="mcp:read"))["scope"] == "mcp:read"


SEVERAL = ("Name one resource per request: a token has one audience here (RFC 8707 2); ask for a token per "
           "resource.")


def test_two_resources_are_one_too_many(tokens: TokenClient) -> None:
    register()
    result = tokens.post(CC + [("resource", MCP), ("resource", f"{ISSUER}/charges")],
                         auth=basic("demo-service", SECRETS["demo-service"]))
    assert_error(result, 400, "invalid_target", SEVERAL)


def test_two_resources_at_authorize_and_par(browser: Browser, tokens: TokenClient) -> None:
    register()
    redirect = redirect_of(browser.get(web_params(scope="mcp:read") + [("resource", MCP), ("resource", OTHER)]))
    assert redirect.params == {"error": ["invalid_target"], "error_description": [SEVERAL], "state": ["xyz-state"],
                               "iss": [ISSUER]}
    pushed = push(tokens, web_params(scope="mcp:read") + [("resource", MCP), ("resource", OTHER)])
    assert_error(pushed, 400, "invalid_target", SEVERAL)


def test_a_token_for_another_resource_is_refused_by_the_charges_api(demo: Demo, tokens: TokenClient,
                                                                   invoke: Any) -> None:
    register()
    token = body_of(cc(tokens, resource=MCP, scope="mcp:read"))["access_token"]
    event = demo.event("GET", client=None, headers={"Authorization": f"Bearer {token}"})
    result = invoke("charges", event)
    assert (result["statusCode"], body(result)["code"], body(result)["detail"]) == (
        401, "invalid_token", "The token is not meant for this resource (aud).")
    assert headers(result)["www-authenticate"].startswith('Bearer realm="api", error="invalid_token"')


# --------------------------------------------------------------------------- authorization code, refresh

def authorized_code(browser: Browser, **overrides: str | None) -> str:
    page = page_of(browser.get(web_params(**overrides)))
    assert page.status == 200, page.body[:400]
    return redirect_of(browser.submit(page)).one("code")


@pytest.mark.slow
def test_authorization_code_and_refresh_keep_the_resource(browser: Browser, tokens: TokenClient) -> None:
    register()
    code = authorized_code(browser, resource=MCP, scope="mcp:read mcp:write")
    issued = body_of(tokens.exchange(code))
    assert (claims_of(issued["access_token"])["aud"], issued["scope"]) == (MCP, "mcp:read mcp:write")
    # RFC 8707 2.2: a refresh names the grant's resource again, or none, and may narrow the scope.
    again = body_of(tokens.refresh(issued["refresh_token"], scope="mcp:read"))
    assert (claims_of(again["access_token"])["aud"], again["scope"]) == (MCP, "mcp:read")
    named = tokens.as_client("demo-web", [("grant_type", "refresh_token"),
                                          ("refresh_token", again["refresh_token"]), ("resource", MCP)])
    assert claims_of(body_of(named)["access_token"])["aud"] == MCP
    other = tokens.as_client("demo-web", [("grant_type", "refresh_token"),
                                          ("refresh_token", body_of(named)["refresh_token"]),
                                          ("resource", f"{ISSUER}/charges")])
    assert_error(other, 400, "invalid_target", "The resource is not the one this grant was issued for (RFC 8707 2.2).")


@pytest.mark.slow
def test_a_code_for_the_charges_api_is_not_exchanged_for_another_resource(browser: Browser,
                                                                          tokens: TokenClient) -> None:
    register()
    code = authorized_code(browser)
    fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", WEB_REDIRECT),
              ("code_verifier", VERIFIER), ("resource", MCP)]
    assert_error(tokens.as_client("demo-web", fields), 400, "invalid_target",
                 "The resource is not the one this grant was issued for (RFC 8707 2.2).")


def test_authorize_redirects_unknown_resource_as_invalid_target(browser: Browser) -> None:
    register()
    redirect = redirect_of(browser.get(web_params(resource=OTHER)))
    assert redirect.params == {
        "error": ["invalid_target"],
        "error_description": [f"The resource {OTHER} is not registered with this authorization server."],
        "state": ["xyz-state"], "iss": [ISSUER]}


def test_par_refuses_a_resource_the_tenant_may_not_use(tokens: TokenClient) -> None:
    register(tenants=("acme",))
    assert_error(push(tokens, web_params(resource=MCP, scope="mcp:read")), 400, "invalid_target",
                 f"The resource {MCP} is not available to this tenant.", code="resource_not_allowed")


def test_par_accepts_a_registered_resource(tokens: TokenClient) -> None:
    register()
    pushed_uri(push(tokens, web_params(resource=MCP, scope="mcp:read")))


@pytest.mark.slow
def test_a_deleted_resource_stops_refreshing(browser: Browser, tokens: TokenClient) -> None:
    from authgate import caches
    from authgate.stores.resources import ResourceStore

    register()
    issued = body_of(tokens.exchange(authorized_code(browser, resource=MCP, scope="mcp:read")))
    resource = ResourceStore().get(MCP)
    assert resource is not None
    ResourceStore().delete(resource)
    caches.reset()  # what the 60 s warm cache does by itself
    assert_error(tokens.refresh(issued["refresh_token"]), 400, "invalid_target",
                 f"The resource {MCP} is not registered with this authorization server.", code="unknown_resource")


# --------------------------------------------------------------------------- introspection by the resource server

@pytest.mark.slow
def test_the_resource_servers_credentials_see_its_tokens_of_any_client(browser: Browser,
                                                                      tokens: TokenClient) -> None:
    creds = register()
    service = body_of(cc(tokens, resource=MCP, scope="mcp:read"))["access_token"]
    web = body_of(tokens.exchange(authorized_code(browser, resource=MCP, scope="mcp:write")))
    # A person's token: sub their user_id and username their username (RFC 7662 2.2); a client's: sub the client.
    for token, client_id, person, scope in ((service, "demo-service", {"sub": "demo-service"}, "mcp:read"),
                                            (web["access_token"], "demo-web", {"sub": ALICE_ID, "username": "alice"},
                                             "mcp:write")):
        seen = body_of(introspect(tokens, creds, token))
        claims = claims_of(token)
        assert seen == {"active": True, "scope": scope, "client_id": client_id, **person, "exp": claims["exp"],
                        "iat": claims["iat"], "iss": ISSUER, "aud": MCP, "token_type": "Bearer",
                        "jti": claims["jti"]}
    # Not its refresh tokens, not the charges API's tokens, not another resource's.
    register(OTHER)
    other = body_of(cc(tokens, resource=OTHER, scope="mcp:read"))["access_token"]
    for token in (web["refresh_token"], body_of(cc(tokens))["access_token"], other):
        assert_ok(introspect(tokens, creds, token), {"active": False})


def test_a_revoked_token_is_inactive_to_the_resource_server(tokens: TokenClient) -> None:
    creds = register()
    token = body_of(cc(tokens, resource=MCP))["access_token"]
    revoked = tokens.post([("token", token)], path="/oauth/revoke", auth=basic("demo-service", SECRETS["demo-service"]))
    assert revoked["statusCode"] == 200
    assert_ok(introspect(tokens, creds, token), {"active": False})


def test_a_client_still_introspects_its_own_tokens_of_any_resource(tokens: TokenClient) -> None:
    register()
    token = body_of(cc(tokens, resource=MCP))["access_token"]
    assert body_of(tokens.introspect(token, client_id="demo-service"))["aud"] == MCP
    assert_ok(tokens.introspect(token, client_id="demo-reader"), {"active": False})


def test_the_introspection_client_can_get_no_token(tokens: TokenClient) -> None:
    creds = register()
    assert_error(tokens.post(CC, auth=basic(*creds)), 400, "unauthorized_client",
                 "This client may not use the client_credentials grant.")


def test_a_dpop_bound_token_is_introspected_with_its_key(tokens: TokenClient) -> None:
    """RFC 9449 6.2: the resource server learns cnf.jkt, to check the DPoP proof it is sent."""
    from tests.dpop_support import DpopKey

    creds = register()
    key = DpopKey()
    issued = tokens.post(CC + [("resource", MCP)], auth=basic("demo-service", SECRETS["demo-service"]),
                         headers=[("DPoP", key.proof("POST", f"{ISSUER}/oauth/token"))])
    token = body_of(issued)["access_token"]
    seen = body_of(introspect(tokens, creds, token))
    assert (seen["active"], seen["token_type"], seen["cnf"], seen["aud"]) == (
        True, "DPoP", {"jkt": key.jkt}, MCP)


def test_a_throttled_registry_is_503_and_not_remembered(tokens: TokenClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A storage fault is never read as "not registered": 503 now, the resource known on the retry."""
    from botocore.exceptions import ClientError

    from authgate.aws import dynamodb

    register()
    client = dynamodb()
    real = client.get_item

    def throttled(**kwargs: Any) -> Any:
        if kwargs["TableName"] == "ResourcesTable":
            raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "GetItem")
        return real(**kwargs)

    monkeypatch.setattr(client, "get_item", throttled)  # AWS fault injection, not our code
    refused = cc(tokens, resource=MCP)
    assert (refused["statusCode"], headers(refused)["retry-after"], body_of(refused)["error"]) == (
        503, "1", "temporarily_unavailable")
    monkeypatch.setattr(client, "get_item", real)
    assert claims_of(body_of(cc(tokens, resource=MCP))["access_token"])["aud"] == MCP
