"""oauth.token.grants.base: what every grant shares: the response body (RFC 6749 5.1), scopes (3.3), DPoP binding (RFC 9449 5)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from authgate.errors import ApiError
from authgate.oauth.resource_indicator import builtin_resource
from authgate.oauth.token.grants.base import (
    TokenRequest,
    TokenResult,
    check_key_binding,
    check_scopes,
    issued,
    requested_scopes,
)
from authgate.tenants.model import Tenant
from tests.unit.oauth.token.grants.conftest import SERVICE, claims

CHARGES = builtin_resource("https://auth.example.com")


def test_the_token_response_body() -> None:
    assert TokenResult("at", 900, "charges:read").body() == {
        "access_token": "at", "token_type": "Bearer", "expires_in": 900, "scope": "charges:read"}
    assert TokenResult("at", 900, "s", "rt", "DPoP").body() == {
        "access_token": "at", "token_type": "DPoP", "expires_in": 900, "scope": "s", "refresh_token": "rt"}


def test_every_grant_ends_in_one_tail_bound_to_the_proof_key_when_there_is_one(
        token_request: Callable[..., TokenRequest]) -> None:
    bearer = issued(token_request(SERVICE, {}), subject="alice", tenant="demo", scopes=("charges:read", "charges:write"),
                    audience="https://api.example/charges")
    c = claims(bearer.access_token)
    assert (bearer.token_type, bearer.scope, bearer.expires_in, bearer.refresh_token) == (
        "Bearer", "charges:read charges:write", 900, None)
    assert (c["sub"], c["client_id"], c["tenant"], c["aud"], c["scope"]) == (
        "alice", "svc", "demo", "https://api.example/charges", "charges:read charges:write")
    assert "cnf" not in c and "grant_id" not in c
    bound = issued(token_request(SERVICE, {}, dpop_jkt="key-a"), subject="alice", tenant="demo", scopes=("charges:read",),
                   audience="https://api.example/charges", grant_id="g1", refresh_token="rt")
    assert (bound.token_type, bound.refresh_token) == ("DPoP", "rt")
    assert (claims(bound.access_token)["cnf"], claims(bound.access_token)["grant_id"]) == ({"jkt": "key-a"}, "g1")


def test_absent_scope_is_the_clients_registered_scopes_less_what_the_tenant_forbids() -> None:
    assert requested_scopes(None) is None
    assert check_scopes(None, SERVICE, None, CHARGES) == ("charges:read", "charges:write")
    assert check_scopes(None, SERVICE, Tenant("demo", forbidden_scopes=frozenset({"charges:write"})), CHARGES) == (
        "charges:read",)
    with pytest.raises(ApiError) as info:
        check_scopes(None, SERVICE, Tenant("demo", forbidden_scopes=frozenset(SERVICE.scopes)), CHARGES)
    assert (info.value.code, info.value.detail) == ("invalid_scope", "No scope is available to this client.")


def test_an_empty_scope_parameter_is_invalid_scope() -> None:
    with pytest.raises(ApiError) as info:
        check_scopes(requested_scopes(""), SERVICE, None, CHARGES)
    assert (info.value.code, info.value.detail) == ("invalid_scope", "The scope parameter is empty.")


def test_key_binding() -> None:
    check_key_binding(None, None, "code")
    check_key_binding(None, "any", "code")  # an unbound grant may be redeemed with a proof
    check_key_binding("k", "k", "code")
    with pytest.raises(ApiError) as missing:
        check_key_binding("k", None, "code")
    with pytest.raises(ApiError) as other:
        check_key_binding("k", "j", "code")
    assert (missing.value.code, other.value.code) == ("invalid_dpop_proof", "invalid_grant")
