"""Enterprise-managed authorization end to end, with a client nobody here wrote: the MCP Python SDK's
`IdentityAssertionOAuthProvider` (mcp 2.3) gets a token for the test MCP server from an ID-JAG issued by a test
IdP whose keys an https host of the run serves (its CA trusted through SSL_CERT_FILE), registered with
`authgate idps create`, and calls a tool; the same ID-JAG replayed, one signed by an untrusted key, and ones
naming another resource or another client are refused, each response asserted whole."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import requests

from tests.demo import ALICE_ID
from tests.document_server import Route
from tests.e2e.admin_commands import admin
from tests.e2e.mcp_stack import McpStack
from tests.idp_support import TestIdp

pytestmark = pytest.mark.e2e

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ISSUER = "https://idp.e2e.example"


@pytest.fixture(scope="module")
def enterprise(mcp: McpStack) -> tuple[TestIdp, dict[str, Any]]:
    """The test IdP trusted by tenant demo (keys by JWKS URI), and a confidential client allowed the grant."""
    idp = TestIdp(ISSUER)
    mcp.documents.routes["/idp/keys"] = Route(idp.jwks_json(), headers={"Content-Type": "application/jwk-set+json"})
    trusted = admin(mcp.stack, "idps", "create", "--tenant", "demo", "--issuer", ISSUER, "--jwks-uri",
                    mcp.documents.url("/idp/keys"), "--json")
    assert trusted.returncode == 0, trusted.stderr
    created = admin(mcp.stack, "clients", "create", "--tenant", "demo", "--name", "enterprise agent",
                    "--grant", "jwt-bearer", "--json")
    assert created.returncode == 0, created.stderr
    client = json.loads(created.stdout)
    assert client["grant_types"] == [JWT_BEARER]
    return idp, client


async def call_a_tool(mcp: McpStack, client: dict[str, Any], assertion_for: Any,
                      scope: str = "mcp:read") -> dict[str, Any]:
    """The SDK's provider against authgate (issuer configured, never discovered from the MCP server)."""
    import httpx2
    from mcp import Client
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import OAuthToken

    class Memory:
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

    storage = Memory()
    asked: list[tuple[str, str]] = []

    async def assertion_provider(audience: str, resource: str) -> str:
        asked.append((audience, resource))
        return str(assertion_for(audience, resource))

    provider = IdentityAssertionOAuthProvider(
        server_url=mcp.server.resource, storage=storage, client_id=client["client_id"],  # type: ignore[arg-type]
        client_secret=client["client_secret"], issuer=mcp.issuer, assertion_provider=assertion_provider,
        scope=scope)
    http = httpx2.AsyncClient(auth=provider, timeout=30)
    async with http, Client(streamable_http_client(mcp.server.resource, http_client=http)) as session:
        listed = await session.call_tool("list_notes", {})
    token = storage.tokens.model_dump(mode="json") if storage.tokens else None
    return {"asked": asked, "is_error": listed.is_error, "token": token}


def test_the_python_sdk_gets_a_token_from_an_id_jag_and_calls_a_tool(
        mcp: McpStack, enterprise: tuple[TestIdp, dict[str, Any]]) -> None:
    idp, client = enterprise
    issued: list[str] = []

    def assertion_for(audience: str, resource: str) -> str:
        issued.append(idp.id_jag(audience=audience, client_id=client["client_id"], resource=resource,
                                 scope="mcp:read"))
        return issued[-1]

    def key_fetches() -> int:
        return len([path for path, _ in mcp.documents.requests if path == "/idp/keys"])

    before = key_fetches()
    result = anyio.run(functools.partial(call_a_tool, mcp, client, assertion_for))
    assert result["asked"] == [(mcp.issuer, mcp.server.resource)]
    assert result["is_error"] is False
    token = result["token"]
    assert {k: token[k] for k in ("token_type", "scope")} == {"token_type": "Bearer", "scope": "mcp:read"}
    assert "refresh_token" not in token or token["refresh_token"] is None
    # authgate fetched the IdP's keys from its JWKS URI, at most once for this one assertion (another test of the
    # module may have warmed the cache, or an admin command of another test reset it: docs/local.md).
    assert key_fetches() >= 1 and key_fetches() - before <= 1

    # The same ID-JAG again: refused, whole.
    replayed = present(mcp, client, issued[0])
    assert_refused(replayed, mcp, "id_jag_replayed", "The assertion has already been used (RFC 7523 3).")


def present(mcp: McpStack, client: dict[str, Any], assertion: str, **fields: str) -> requests.Response:
    return requests.post(f"{mcp.issuer}/oauth/token", timeout=30, data={
        "grant_type": JWT_BEARER, "assertion": assertion, "client_id": client["client_id"],
        "client_secret": client["client_secret"], "resource": mcp.server.resource, **fields})


def assert_refused(answer: requests.Response, mcp: McpStack, code: str, description: str) -> None:
    assert (answer.status_code, answer.headers["Content-Type"], answer.headers["Cache-Control"],
            answer.headers["Pragma"], answer.json()) == (
        400, "application/json", "no-store", "no-cache",
        {"error": "invalid_grant", "error_description": description, "error_uri": f"{mcp.issuer}/problems/{code}"})


def test_an_untrusted_key_another_resource_or_client_is_refused(
        mcp: McpStack, enterprise: tuple[TestIdp, dict[str, Any]]) -> None:
    idp, client = enterprise
    forger = TestIdp(ISSUER)  # the IdP's issuer and kid, another key
    forged = forger.id_jag(audience=mcp.issuer, client_id=client["client_id"], resource=mcp.server.resource,
                           scope="mcp:read")
    assert_refused(present(mcp, client, forged), mcp, "id_jag_signature_invalid",
                   "The assertion is not signed by a key of its identity provider.")
    elsewhere = idp.id_jag(audience=mcp.issuer, client_id=client["client_id"], resource=mcp.other.resource,
                           scope="mcp:read")
    assert_refused(present(mcp, client, elsewhere), mcp, "id_jag_resource_invalid",
                   "The resource parameter is not a resource the assertion was issued for.")
    other_client = idp.id_jag(audience=mcp.issuer, client_id="demo-service", resource=mcp.server.resource,
                              scope="mcp:read")
    assert_refused(present(mcp, client, other_client), mcp, "id_jag_client_mismatch",
                   "The assertion's client_id is not the authenticated client.")
    # Refused requests did not spend the ID-JAG a valid request then uses.
    good = idp.id_jag(audience=mcp.issuer, client_id=client["client_id"], resource=mcp.server.resource,
                      scope="mcp:read")
    assert present(mcp, client, good, scope="mcp:write").json()["error"] == "invalid_scope"
    accepted = present(mcp, client, good)
    assert (accepted.status_code, set(accepted.json())) == (200, {"access_token", "token_type", "expires_in", "scope"})


def test_the_sdk_surfaces_a_refused_id_jag(mcp: McpStack, enterprise: tuple[TestIdp, dict[str, Any]]) -> None:
    """An assertion for another client: the SDK raises with authgate's error, it never gets a token."""
    from mcp.client.auth import OAuthTokenError

    idp, client = enterprise

    def assertion_for(audience: str, resource: str) -> str:
        return idp.id_jag(audience=audience, client_id="demo-service", resource=resource, scope="mcp:read")

    with pytest.raises(BaseException) as raised:
        anyio.run(functools.partial(call_a_tool, mcp, client, assertion_for))
    errors = [raised.value]
    found: list[BaseException] = []
    while errors:
        current = errors.pop()
        found.append(current)
        if isinstance(current, BaseExceptionGroup):
            errors.extend(current.exceptions)
        errors.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    token_errors = [e for e in found if isinstance(e, OAuthTokenError)]
    assert token_errors and "id_jag_client_mismatch" in str(token_errors[0]), found


def test_the_mcp_servers_token_is_exchanged_for_a_charge_that_records_the_actor(
        mcp: McpStack, enterprise: tuple[TestIdp, dict[str, Any]], tmp_path: Path) -> None:
    """The whole chain: the SDK's token from an ID-JAG for an MCP server; that server, with its own credentials
    and Authlib, exchanges it (RFC 8693) for a /charges token; the charge it creates names alice and the server."""
    from authlib.integrations.requests_client import OAuth2Session

    from tests.e2e.flows import API_KEY
    from tests.e2e.mcp_stack import mcp_server

    idp, client = enterprise
    charges = f"{mcp.issuer}/charges"
    with mcp_server(mcp.stack, tmp_path, "mcp-payments") as payments:
        updated = admin(mcp.stack, "resources", "update", payments.resource, "--scopes",
                        "mcp:read mcp:write charges:write", "--may-delegate-to", charges, "--json")
        assert updated.returncode == 0, updated.stderr
        assert json.loads(updated.stdout)["may_delegate_to"] == [charges]
        at_payments = McpStack(mcp.stack, mcp.documents, payments, mcp.other)

        def assertion_for(audience: str, resource: str) -> str:
            return idp.id_jag(audience=audience, client_id=client["client_id"], resource=resource,
                              scope="mcp:read charges:write")

        result = anyio.run(functools.partial(call_a_tool, at_payments, client, assertion_for,
                                             scope="mcp:read charges:write"))
        assert result["is_error"] is False
        subject = result["token"]["access_token"]

        server = OAuth2Session(payments.credentials["introspection_client_id"],
                               payments.credentials["introspection_client_secret"],
                               token_endpoint_auth_method="client_secret_basic")
        exchanged = server.fetch_token(f"{mcp.issuer}/oauth/token",
                                       grant_type="urn:ietf:params:oauth:grant-type:token-exchange",
                                       subject_token=subject,
                                       subject_token_type="urn:ietf:params:oauth:token-type:access_token",
                                       resource=charges, scope="charges:write")
        assert (exchanged["issued_token_type"], exchanged["scope"]) == (
            "urn:ietf:params:oauth:token-type:access_token", "charges:write")
        created = requests.post(charges, json={"amount": 1200, "currency": "usd"}, timeout=30, headers={
            "Authorization": f"Bearer {exchanged['access_token']}", "x-api-key": API_KEY})
        assert created.status_code == 201, created.text
        assert created.json()["created_by"] == {"sub": ALICE_ID, "username": "alice", "act": {"sub": payments.resource}}
