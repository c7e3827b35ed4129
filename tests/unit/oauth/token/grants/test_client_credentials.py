"""oauth.token.grants.client_credentials (RFC 6749 4.4): confidential clients, tenant approval and scopes, no refresh token."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from authgate.errors import ApiError
from authgate.oauth.token.grants.base import TokenRequest
from authgate.oauth.token.grants.client_credentials import ClientCredentialsGrant
from authgate.stores.tenants import TenantStore
from authgate.tenants.model import Tenant
from tests.unit.oauth.token.grants.conftest import SERVICE, WEB, claims

MakeRequest = Callable[..., TokenRequest]


def refused(req: TokenRequest) -> tuple[str, str]:
    with pytest.raises(ApiError) as info:
        ClientCredentialsGrant().exchange(req)
    return info.value.code, info.value.detail


def test_the_token_is_the_clients_own_with_its_registered_scopes(token_request: MakeRequest) -> None:
    result = ClientCredentialsGrant().exchange(token_request(SERVICE, {}))
    assert (result.scope, result.refresh_token, result.token_type, result.expires_in) == (
        "charges:read charges:write", None, "Bearer", 900)
    c = claims(result.access_token)
    assert (c["sub"], c["client_id"], c["tenant"], c["scope"]) == ("svc", "svc", "demo", "charges:read charges:write")
    assert "grant_id" not in c and "cnf" not in c


def test_a_requested_scope_narrows_the_token(token_request: MakeRequest) -> None:
    result = ClientCredentialsGrant().exchange(token_request(SERVICE, {"scope": "charges:read"}))
    assert (result.scope, claims(result.access_token)["scope"]) == ("charges:read", "charges:read")


def test_a_dpop_key_binds_the_token(token_request: MakeRequest) -> None:
    result = ClientCredentialsGrant().exchange(token_request(SERVICE, {}, dpop_jkt="thumbprint"))
    assert (result.token_type, claims(result.access_token)["cnf"]) == ("DPoP", {"jkt": "thumbprint"})


def test_a_public_client_is_refused(token_request: MakeRequest) -> None:
    assert refused(token_request(WEB, {})) == (
        "unauthorized_client", "Public clients cannot use client_credentials (RFC 6749 4.4).")


@pytest.mark.parametrize(("scope", "detail"), [
    ("admin:everything", "The scope 'admin:everything' is unknown."),
    ("charges:refund", "The scope 'charges:refund' is not allowed for this client."),
    ("charges:read  charges:write", "The scope parameter is not a list of scope tokens (RFC 6749 3.3)."),
])
def test_a_bad_scope_is_invalid_scope(token_request: MakeRequest, scope: str, detail: str) -> None:
    assert refused(token_request(SERVICE, {"scope": scope})) == ("invalid_scope", detail)


def test_a_scope_the_tenant_forbids_is_left_out_or_refused(token_request: MakeRequest) -> None:
    TenantStore().put(Tenant("demo", forbidden_scopes=frozenset({"charges:write"})))
    assert ClientCredentialsGrant().exchange(token_request(SERVICE, {})).scope == "charges:read"
    assert refused(token_request(SERVICE, {"scope": "charges:write"})) == (
        "invalid_scope", "The scope 'charges:write' is forbidden by the tenant.")


def test_a_client_awaiting_approval_gets_nothing_until_the_tenant_approves(token_request: MakeRequest) -> None:
    client = SERVICE._replace(requires_admin_approval=True)
    TenantStore().put(Tenant("demo"))
    assert refused(token_request(client, {})) == (
        "unauthorized_client", "The tenant's administrator has not approved this client.")
    from authgate import caches

    TenantStore().put(Tenant("demo", approved_clients=frozenset({"svc"})))
    caches.reset()  # the tenant is cached for 60 s per warm function
    assert ClientCredentialsGrant().exchange(token_request(client, {})).scope == "charges:read charges:write"
