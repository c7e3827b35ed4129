"""A tenant's switch means what docs/agents.md says, for the grants its users already made (issue 26 item 3).

Switching `registered_clients` off, or taking a metadata host off `client_metadata_hosts`, stops new
authorizations and every token grant (code exchange, refresh) of the clients the tenant holds; a
scope removed from a resource or forbidden by the tenant leaves the refreshed token; a deleted (RFC 7592
2.3) registration's tokens are inactive at introspection; a PUT keeps the expiry; an expired
registration authorizes nothing. Whole responses, through the authorize and token handlers.
"""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.conftest import Invoke
from tests.demo import VERIFIER
from tests.document_server import DocumentServer
from tests.functional.authorize_support import (
    Browser,
    assert_error_page,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.resource_support import MCP, introspect, register
from tests.functional.self_registration_support import call, query, without_request_id
from tests.functional.self_registration_support import register as register_client
from tests.functional.token_support import (
    BASIC_CHALLENGE,
    TokenClient,
    assert_error,
    body_of,
    claims_of,
)

# Slow: every test signs alice in at full scrypt cost.
pytestmark = pytest.mark.slow

REDIRECT = "http://127.0.0.1:9/callback"
DAY = 86400


def set_tenant(**settings: Any) -> None:
    """What `authgate tenants update demo ...` writes; then a minute passes (the 60 s warm tenant cache)."""
    from authgate import caches
    from authgate.stores.tenants import TenantStore

    store = TenantStore()
    demo = store.get("demo")
    assert demo is not None
    store.put(demo._replace(**settings))
    caches.reset()


def sign_in(browser: Browser, client_id: str, tenant: str = "demo", **extra: str) -> dict[str, Any]:
    page = page_of(browser.get(query(client_id, **extra)))
    assert page.status == 200, page.text()
    return browser.post(list(page.hidden().items()) + [("tenant", tenant), ("username", "alice"),
                                                       ("password", "alice-password"), ("decision", "approve")])


def exchange(tokens: TokenClient, client_id: str, code: str) -> dict[str, Any]:
    return tokens.post([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", REDIRECT),
                        ("code_verifier", VERIFIER), ("client_id", client_id)])


def refresh(tokens: TokenClient, client_id: str, refresh_token: str, **extra: str) -> dict[str, Any]:
    return tokens.post([("grant_type", "refresh_token"), ("refresh_token", refresh_token), ("client_id", client_id),
                        *extra.items()])


REGISTERED_REFUSED = ("The organisation this grant was made in no longer accepts applications that registered "
                      "themselves; sign in again once its administrator allows it.")


# --------------------------------------------------------------------------- registered_clients off

def test_registered_clients_off_stops_a_held_clients_refresh_code_exchange_and_authorization(
        dcr: None, invoke: Invoke, browser: Browser, tokens: TokenClient) -> None:
    client_id = body_of(register_client(invoke, scope="charges:read"))["client_id"]
    issued = body_of(exchange(tokens, client_id, redirect_of(sign_in(browser, client_id)).one("code")))
    pending = redirect_of(sign_in(browser, client_id)).one("code")  # the client is demo's now: no tenant field

    set_tenant(registered_clients=False)
    assert_error(refresh(tokens, client_id, issued["refresh_token"]), 400, "invalid_grant", REGISTERED_REFUSED,
                 code="registered_client_not_allowed")
    assert_error(exchange(tokens, client_id, pending), 400, "invalid_grant", REGISTERED_REFUSED,
                 code="registered_client_not_allowed")
    # A new authorization is a page, never a redirect: the tenant no longer trusts the client's redirect URI.
    assert_error_page(browser.get(query(client_id)), "registered_client_not_allowed",
                      "Your organisation does not accept applications that registered themselves. Ask its "
                      "administrator.")

    # Switched on again, the grant works again (it was refused, not revoked).
    set_tenant(registered_clients=True)
    again = refresh(tokens, client_id, issued["refresh_token"])
    assert (again["statusCode"], body_of(again)["scope"]) == (200, "charges:read")


# --------------------------------------------------------------------------- a metadata host removed

def test_a_host_taken_off_the_allow_list_stops_refresh_and_sign_in(cimd: DocumentServer, browser: Browser,
                                                                     tokens: TokenClient) -> None:
    client_id = cimd.document("/agent.json", scope="charges:read")
    issued = body_of(exchange(tokens, client_id, redirect_of(sign_in(browser, client_id)).one("code")))

    set_tenant(client_metadata_hosts=("tools.example",))
    assert_error(refresh(tokens, client_id, issued["refresh_token"]), 400, "invalid_grant",
                 "The organisation this grant was made in no longer accepts applications known only by a metadata "
                 "document from 127.0.0.1; sign in again once its administrator allows it.",
                 code="client_metadata_not_allowed")
    assert_error_page(sign_in(browser, client_id), "client_metadata_not_allowed",
                      "Your organisation does not accept applications known only by a metadata document from "
                      "127.0.0.1. Ask its administrator.")


# --------------------------------------------------------------------------- scopes that left

def test_a_refresh_drops_a_scope_the_tenant_now_forbids(browser: Browser, tokens: TokenClient) -> None:
    page = page_of(browser.get(web_params(scope="charges:read charges:write")))
    issued = body_of(tokens.exchange(redirect_of(browser.submit(page)).one("code")))
    assert issued["scope"] == "charges:read charges:write"

    set_tenant(forbidden_scopes=frozenset({"charges:refund", "charges:write"}))
    narrowed = tokens.refresh(issued["refresh_token"])
    body = body_of(narrowed)
    assert (narrowed["statusCode"], without_request_id(narrowed), body) == (
        200, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"},
        {"access_token": body["access_token"], "token_type": "Bearer", "expires_in": 900, "scope": "charges:read",
         "refresh_token": body["refresh_token"]})
    assert claims_of(body["access_token"])["scope"] == "charges:read"
    assert_error(tokens.refresh(body_of(narrowed)["refresh_token"], scope="charges:write"), 400, "invalid_scope",
                 "The scope 'charges:write' is forbidden by the tenant.")

    set_tenant(forbidden_scopes=frozenset({"charges:read", "charges:write"}))
    # The refused request above rotated nothing: its token is still the family's current one.
    assert_error(tokens.refresh(body_of(narrowed)["refresh_token"]), 400, "invalid_scope",
                 "None of the scopes of this grant is available any more (removed from the resource, forbidden by "
                 "the tenant or no longer allowed for the client); ask the user to authorize again.")


def test_a_refresh_drops_a_scope_removed_from_the_resource(browser: Browser, tokens: TokenClient) -> None:
    from authgate import caches
    from authgate.stores.resources import ResourceStore

    register(granted_to=())
    page = page_of(browser.get(web_params(resource=MCP, scope="mcp:read mcp:write")))
    issued = body_of(tokens.exchange(redirect_of(browser.submit(page)).one("code")))
    assert issued["scope"] == "mcp:read mcp:write"
    resource = ResourceStore().get(MCP)
    assert resource is not None
    ResourceStore().update(resource._replace(scopes=("mcp:read",)))
    caches.reset()  # what the 60 s warm resource cache does by itself
    narrowed = body_of(tokens.refresh(issued["refresh_token"]))
    assert (narrowed["scope"], claims_of(narrowed["access_token"])["scope"]) == ("mcp:read", "mcp:read")


# --------------------------------------------------------------------------- RFC 7592 DELETE, PUT, expiry

def registered_and_signed_in(invoke: Invoke, browser: Browser, tokens: TokenClient,
                             **extra: str) -> tuple[dict[str, Any], dict[str, Any]]:
    registration = body_of(register_client(invoke, scope="charges:read"))
    code = redirect_of(sign_in(browser, registration["client_id"], **extra)).one("code")
    return registration, body_of(exchange(tokens, registration["client_id"], code))


def test_a_deleted_registrations_tokens_are_inactive_at_introspection(dcr: None, invoke: Invoke, browser: Browser,
                                                                        tokens: TokenClient) -> None:
    creds = register(granted_to=())
    registration, issued = registered_and_signed_in(invoke, browser, tokens, resource=MCP, scope="mcp:read")
    seen = body_of(introspect(tokens, creds, issued["access_token"]))
    assert (seen["active"], seen["client_id"]) == (True, registration["client_id"])

    path = f"/oauth/register/{registration['client_id']}"
    deleted = call(invoke, "DELETE", path, token=registration["registration_access_token"],
                   resource="/oauth/register/{client_id}")
    assert (deleted["statusCode"], deleted["body"]) == (204, "")
    gone = introspect(tokens, creds, issued["access_token"])
    assert (gone["statusCode"], without_request_id(gone), body_of(gone)) == (
        200, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"},
        {"active": False})


def test_a_put_keeps_the_expiry_and_an_expired_registration_authorizes_nothing(
        dcr: None, invoke: Invoke, browser: Browser, tokens: TokenClient, clock: ManualClock) -> None:
    from authgate.stores.clients import ClientStore

    registration, issued = registered_and_signed_in(invoke, browser, tokens)
    client_id, store = registration["client_id"], ClientStore()
    before = store.get(client_id)
    assert before is not None and before.expires_at == before.created_at + 30 * DAY

    # Used on day 20, its expiry moved to day 50; replaced on day 40: the expiry stays in the future.
    clock.advance(20 * DAY)
    assert refresh(tokens, client_id, issued["refresh_token"])["statusCode"] == 200
    used = store.get(client_id)
    assert used is not None and used.expires_at == before.created_at + 50 * DAY
    clock.advance(20 * DAY)
    put = call(invoke, "PUT", f"/oauth/register/{client_id}", {"client_id": client_id, "client_name": "Renamed",
                                                               "redirect_uris": [REDIRECT]},
               token=registration["registration_access_token"], resource="/oauth/register/{client_id}")
    assert put["statusCode"] == 200, put["body"]
    replaced = store.get(client_id)
    assert replaced is not None and (replaced.name, replaced.expires_at) == ("Renamed", used.expires_at)

    # Past its expiry, before DynamoDB's TTL has removed it: unknown everywhere.
    clock.advance(11 * DAY)
    assert_error_page(browser.get(query(client_id)), "unknown_client",
                      "No client with this client_id is registered. Check the client_id the application sends.")
    assert_error(refresh(tokens, client_id, issued["refresh_token"]), 401, "invalid_client",
                 "Client authentication failed.", {"WWW-Authenticate": BASIC_CHALLENGE})
    assert ClientStore().get(client_id) is None and ClientStore().get(client_id, any_environment=True) is None
