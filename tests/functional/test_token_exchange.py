"""RFC 8693 token exchange at the token endpoint: a resource server's own credentials trade a user's token for a
narrower one for another API (docs/delegation.md). Whole responses: status, headers, body."""

from __future__ import annotations

from typing import Any

import pytest

from tests.demo import ALICE_ID, ISSUER, SECRETS, WEB_REDIRECT, Demo, body, headers
from tests.dpop_support import DpopKey
from tests.functional.resource_support import MCP, introspect, register
from tests.functional.token_support import (
    OK_HEADERS,
    TokenClient,
    assert_error,
    basic,
    body_of,
    claims_of,
    grant,
    headers_of,
)

EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS = "urn:ietf:params:oauth:token-type:access_token"
CHARGES = f"{ISSUER}/charges"
OTHER = "https://other.example.com/api"
MCP_SCOPES = ("mcp:tools", "charges:read", "charges:write")
TOKEN_URL = f"{ISSUER}/oauth/token"
WIDER = "The scope '{}' exceeds the subject token's scope (RFC 8693 2.1: an exchange only narrows)."


def delegates(uri: str, *targets: str) -> None:
    """What `authgate resources update URI --may-delegate-to TARGET...` writes."""
    from authgate.stores.resources import ResourceStore

    store = ResourceStore()
    resource = store.get(uri)
    assert resource is not None
    store.update(resource._replace(may_delegate_to=targets))


def user_grant(tokens: TokenClient, scope: str = "mcp:tools charges:read charges:write",
               resource: str = MCP) -> dict[str, Any]:
    """alice's code for `resource` exchanged by demo-web: the access and refresh tokens of one grant."""
    from authgate import clock
    from authgate.single_use.authentication import Authentication
    from authgate.stores.codes import CodeStore
    from tests.demo import CHALLENGE

    code = CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=WEB_REDIRECT,
                              code_challenge=CHALLENGE, code_challenge_method="S256", scope=scope, subject="alice",
                              resource=resource, authentication=Authentication(ALICE_ID, clock.seconds()))
    result = tokens.exchange(code)
    assert result["statusCode"] == 200, result["body"]
    return dict(body_of(result))


@pytest.fixture
def mcp(tokens: TokenClient) -> tuple[str, str]:
    """The MCP server, registered with its credentials, allowed to exchange its tokens for the charges API."""
    creds = register(MCP, MCP_SCOPES, granted_to=())
    grant("demo-web", MCP, MCP_SCOPES)
    delegates(MCP, CHARGES)
    return creds


def exchange(tokens: TokenClient, creds: tuple[str, str], subject_token: str, *, dpop: str | None = None,
             **fields: str) -> dict[str, Any]:
    form = {"grant_type": EXCHANGE, "subject_token": subject_token, "subject_token_type": ACCESS,
            "resource": CHARGES, **fields}
    return tokens.post([(k, v) for k, v in form.items() if v], auth=basic(*creds),
                       headers=[("DPoP", dpop)] if dpop else None)


def assert_exchanged(result: dict[str, Any], scope: str, token_type: str = "Bearer") -> dict[str, Any]:
    """The whole RFC 8693 2.2.1 response; returns the issued token's claims."""
    sent = headers_of(result)
    assert sent.pop("x-request-id")
    issued = body_of(result)
    assert (result["statusCode"], sent) == (200, OK_HEADERS)
    assert issued == {"access_token": issued["access_token"], "issued_token_type": ACCESS, "token_type": token_type,
                      "expires_in": issued["expires_in"], "scope": scope}
    return claims_of(issued["access_token"])


# --------------------------------------------------------------------------- the exchange


def test_a_resource_exchanges_a_users_token_for_a_narrower_charges_token(tokens: TokenClient,
                                                                        mcp: tuple[str, str]) -> None:
    subject = user_grant(tokens)
    original = claims_of(subject["access_token"])
    claims = assert_exchanged(exchange(tokens, mcp, subject["access_token"], scope="charges:write"), "charges:write")
    assert claims == {
        "iss": ISSUER, "sub": ALICE_ID, "username": "alice", "aud": CHARGES, "exp": claims["exp"], "iat": claims["iat"], "jti": claims["jti"],
        "client_id": mcp[0], "scope": "charges:write", "tenant": "demo", "grant_id": original["grant_id"],
        "acr": "password", "auth_time": original["auth_time"], "act": {"sub": MCP}}
    assert claims["exp"] <= original["exp"]


def test_a_token_issued_when_sub_was_the_username_is_exchanged_as_it_is(tokens: TokenClient,
                                                                        mcp: tuple[str, str]) -> None:
    """RFC 8693: the new token keeps the subject token's sub; one of before still names the username, and expires
    with it."""
    from authgate.tokens.access_token import issue_access_token

    before = issue_access_token(issuer=ISSUER, subject="alice", client_id="demo-web", tenant="demo",
                                scope="charges:read", audience=MCP, grant_id="g-before").token
    claims = assert_exchanged(exchange(tokens, mcp, before, scope="charges:read"), "charges:read")
    assert (claims["sub"], "username" in claims, claims["exp"] <= claims_of(before)["exp"]) == ("alice", False, True)


def test_without_scope_the_token_gets_the_subjects_scopes_the_target_accepts(tokens: TokenClient,
                                                                            mcp: tuple[str, str]) -> None:
    claims = assert_exchanged(exchange(tokens, mcp, user_grant(tokens)["access_token"]), "charges:read charges:write")
    assert claims["scope"] == "charges:read charges:write"


def test_the_audience_parameter_names_the_target_too(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    result = exchange(tokens, mcp, user_grant(tokens)["access_token"], resource="", audience=CHARGES,
                      scope="charges:read")
    assert assert_exchanged(result, "charges:read")["aud"] == CHARGES
    assert_error(exchange(tokens, mcp, user_grant(tokens)["access_token"], audience=OTHER), 400, "invalid_target",
                 "resource and audience name different services; a token has one audience here (RFC 8707 2).")


def test_the_exchanged_token_expires_with_the_subject_token(tokens: TokenClient, mcp: tuple[str, str],
                                                            clock: Any) -> None:
    subject = user_grant(tokens)
    clock.advance(subject["expires_in"] - 30)
    result = exchange(tokens, mcp, subject["access_token"])
    claims = assert_exchanged(result, "charges:read charges:write")
    assert (body_of(result)["expires_in"], claims["exp"]) == (30, claims_of(subject["access_token"])["exp"])


def test_an_exchange_with_dpop_is_sender_constrained(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    key = DpopKey()
    result = exchange(tokens, mcp, user_grant(tokens)["access_token"], dpop=key.proof("POST", TOKEN_URL))
    assert assert_exchanged(result, "charges:read charges:write", "DPoP")["cnf"] == {"jkt": key.jkt}


def test_the_charges_api_records_who_acted(tokens: TokenClient, mcp: tuple[str, str], demo: Demo,
                                           invoke: Any) -> None:
    token = body_of(exchange(tokens, mcp, user_grant(tokens)["access_token"]))["access_token"]
    auth = {"Authorization": f"Bearer {token}"}
    created = invoke("charges", demo.event("POST", client=None, headers=auth, body={"amount": 500, "currency": "usd"}))
    charge = body(created)
    assert (created["statusCode"], charge["created_by"]) == (201, {"sub": ALICE_ID, "username": "alice",
                                                                  "act": {"sub": MCP}})
    shown = invoke("charges", demo.event("GET", f"/charges/{charge['id']}", client=None, headers=auth))
    assert (shown["statusCode"], headers(shown)["content-type"], body(shown)) == (200, "application/json", charge)


def test_a_second_hop_nests_the_actors_and_introspection_shows_them(tokens: TokenClient,
                                                                    mcp: tuple[str, str]) -> None:
    other = register(OTHER, ("charges:read", "charges:write"), granted_to=())
    delegates(MCP, CHARGES, OTHER)
    delegates(OTHER, CHARGES)
    first = body_of(exchange(tokens, mcp, user_grant(tokens)["access_token"], resource=OTHER))["access_token"]
    seen = introspect(tokens, other, first)
    claims = claims_of(first)
    assert (seen["statusCode"], body_of(seen)) == (200, {
        "active": True, "scope": "charges:read charges:write", "client_id": mcp[0], "sub": ALICE_ID,
        "username": "alice", "exp": claims["exp"], "iat": claims["iat"], "iss": ISSUER, "aud": OTHER, "token_type": "Bearer",
        "jti": claims["jti"], "act": {"sub": MCP}})
    second = assert_exchanged(exchange(tokens, other, first, scope="charges:read"), "charges:read")
    assert (second["sub"], second["act"], second["client_id"]) == (ALICE_ID, {"sub": OTHER, "act": {"sub": MCP}},
                                                                   other[0])


def test_an_actor_token_names_the_actor(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    grant("demo-service", MCP, MCP_SCOPES)
    agent = body_of(tokens.post([("grant_type", "client_credentials"), ("resource", MCP), ("scope", "mcp:tools")],
                                auth=basic("demo-service", SECRETS["demo-service"])))["access_token"]
    result = exchange(tokens, mcp, user_grant(tokens)["access_token"], actor_token=agent, actor_token_type=ACCESS)
    assert assert_exchanged(result, "charges:read charges:write")["act"] == {"sub": "demo-service"}


# --------------------------------------------------------------------------- revocation


def test_revoking_the_original_grant_revokes_what_was_exchanged(tokens: TokenClient, mcp: tuple[str, str],
                                                                demo: Demo, invoke: Any) -> None:
    subject = user_grant(tokens)
    exchanged = body_of(exchange(tokens, mcp, subject["access_token"]))["access_token"]
    assert tokens.revoke(subject["refresh_token"])["statusCode"] == 200
    refused = invoke("charges", demo.event("GET", "/charges", client=None,
                                           headers={"Authorization": f"Bearer {exchanged}"}))
    assert (refused["statusCode"], body(refused)["code"], body(refused)["detail"]) == (
        401, "invalid_token", "The access token was revoked.")
    assert_error(exchange(tokens, mcp, subject["access_token"]), 400, "invalid_request",
                 f"The subject_token is not an active access token for {MCP}: The access token was revoked.",
                 code="subject_token_invalid")


# --------------------------------------------------------------------------- attacks and refusals


def test_a_resource_not_delegated_to_is_refused(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    register(OTHER, ("charges:read",), granted_to=())
    assert_error(exchange(tokens, mcp, user_grant(tokens)["access_token"], resource=OTHER), 400, "invalid_target",
                 f"{MCP} may not exchange tokens for {OTHER} (authgate resources update --may-delegate-to).",
                 code="delegation_not_allowed")


def test_an_unregistered_target_is_unknown_resource(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    assert_error(exchange(tokens, mcp, user_grant(tokens)["access_token"], resource=OTHER), 400, "invalid_target",
                 f"The resource {OTHER} is not registered with this authorization server.", code="unknown_resource")


@pytest.mark.parametrize(("scope", "description"), [
    ("charges:refund", WIDER.format("charges:refund")),
    ("charges:read mcp:admin", WIDER.format("mcp:admin")),
    ("mcp:tools", "The scope 'mcp:tools' is unknown."),
])
def test_a_widened_or_foreign_scope_is_refused(tokens: TokenClient, mcp: tuple[str, str], scope: str,
                                               description: str) -> None:
    assert_error(exchange(tokens, mcp, user_grant(tokens)["access_token"], scope=scope), 400, "invalid_scope",
                 description)


def test_a_subject_with_no_scope_of_the_target_is_refused(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    assert_error(exchange(tokens, mcp, user_grant(tokens, scope="mcp:tools")["access_token"]), 400, "invalid_scope",
                 f"None of the subject token's scopes is a scope of {CHARGES}.")


def test_a_subject_token_of_another_tenant_is_refused(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    from authgate.stores.resources import ResourceStore

    store = ResourceStore()
    resource = store.get(MCP)
    assert resource is not None
    store.update(resource._replace(tenants=("acme",)))
    grant("acme-service", MCP, MCP_SCOPES)
    acme = tokens.post([("grant_type", "client_credentials"), ("resource", MCP), ("scope", "charges:read")],
                       auth=basic("acme-service", SECRETS["acme-service"]))
    acme_token = body_of(acme)["access_token"]
    store.update(resource._replace(tenants=("demo",)))
    from authgate import caches

    caches.reset()  # what 60 s of a warm function's resource cache would do
    assert_error(exchange(tokens, mcp, acme_token), 400, "invalid_request",
                 f"The subject_token belongs to a tenant {MCP} does not serve.", code="subject_token_invalid")


def test_a_token_for_another_resource_is_not_the_resources_to_exchange(tokens: TokenClient,
                                                                       mcp: tuple[str, str]) -> None:
    charges_token = user_grant(tokens, scope="charges:read", resource=CHARGES)["access_token"]
    assert_error(exchange(tokens, mcp, charges_token), 400, "invalid_request",
                 f"The subject_token is not an active access token for {MCP}: The token is not meant for this "
                 "resource (aud).", code="subject_token_invalid")


def test_an_expired_subject_token_is_refused(tokens: TokenClient, mcp: tuple[str, str], clock: Any) -> None:
    subject = user_grant(tokens)
    clock.advance(subject["expires_in"])
    assert_error(exchange(tokens, mcp, subject["access_token"]), 400, "invalid_request",
                 f"The subject_token is not an active access token for {MCP}: The access token expired.",
                 code="subject_token_invalid")


def test_a_chain_past_the_depth_limit_is_refused(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    from authgate.tokens.jwt_profile import MAX_ACTORS

    hops = [f"https://hop{i}.example.com/api" for i in range(MAX_ACTORS)]
    creds = [register(uri, ("charges:read",), granted_to=()) for uri in hops]
    delegates(MCP, hops[0])
    for here, there in zip(hops, hops[1:] + [CHARGES], strict=True):
        delegates(here, there)
    token = body_of(exchange(tokens, mcp, user_grant(tokens)["access_token"], resource=hops[0]))["access_token"]
    for index, there in enumerate(hops[1:], start=1):
        token = body_of(exchange(tokens, creds[index - 1], token, resource=there))["access_token"]
    assert claims_of(token)["act"]["act"]["act"]["act"] == {"sub": MCP}
    assert_error(exchange(tokens, creds[-1], token), 400, "invalid_request",
                 f"The subject token already names {MAX_ACTORS} actors; a token names at most {MAX_ACTORS} "
                 "(RFC 8693 4.1).", code="delegation_too_deep")


def test_only_a_resources_credentials_exchange(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    subject = user_grant(tokens)["access_token"]
    result = tokens.post([("grant_type", EXCHANGE), ("subject_token", subject), ("subject_token_type", ACCESS),
                          ("resource", CHARGES)], auth=basic("demo-service", SECRETS["demo-service"]))
    assert_error(result, 400, "unauthorized_client", f"This client may not use the {EXCHANGE} grant.")


@pytest.mark.parametrize(("fields", "description"), [
    ({"subject_token_type": "urn:ietf:params:oauth:token-type:id_token"},
     f"subject_token_type must be {ACCESS}: only authgate access tokens are exchanged here (RFC 8693 2.2.2)."),
    ({"requested_token_type": "urn:ietf:params:oauth:token-type:refresh_token"},
     f"requested_token_type must be {ACCESS}: only authgate access tokens are exchanged here (RFC 8693 2.2.2)."),
    ({"actor_token": "x.y.z"}, "actor_token and actor_token_type go together (RFC 8693 2.1)."),
    ({"resource": ""}, "Name the target service with resource or audience (RFC 8693 2.1)."),
])
def test_malformed_exchanges_are_invalid_request(tokens: TokenClient, mcp: tuple[str, str], fields: dict[str, str],
                                                 description: str) -> None:
    assert_error(exchange(tokens, mcp, user_grant(tokens)["access_token"], **fields), 400, "invalid_request",
                 description)


def test_a_forged_subject_or_actor_token_is_refused(tokens: TokenClient, mcp: tuple[str, str]) -> None:
    assert_error(exchange(tokens, mcp, "not-a-token"), 400, "invalid_request",
                 f"The subject_token is not an active access token for {MCP}: The access token is not a JWT.",
                 code="subject_token_invalid")
    assert_error(exchange(tokens, mcp, user_grant(tokens)["access_token"], actor_token="a.b.c",
                          actor_token_type=ACCESS), 400, "invalid_request",
                 f"The actor_token is not an active access token for {MCP}: The access token is not a JWT.",
                 code="actor_token_invalid")
