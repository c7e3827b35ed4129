"""Authorization request validation (RFC 6749 4.1.1, 3.1.2; RFC 7636 4.2-4.3): the rules in isolation."""

from __future__ import annotations

import pytest

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.oauth.authorization.request import (
    client_id_of,
    resolve_target,
    single,
    validate,
)
from authgate.oauth.scopes import ScopeSyntaxError, parse_scope
from authgate.tenants.model import Tenant

CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
WEB = Client(client_id="web", tenant_id="t", environment="local", client_type="confidential", secret_hash="h",
             redirect_uris=("https://app.example/cb",), grant_types=("authorization_code",),
             scopes=("charges:read", "charges:write", "charges:refund"), name="Web")
SPA = Client(client_id="spa", tenant_id="t", environment="local", client_type="public", secret_hash=None,
             redirect_uris=("https://spa.example/cb", "com.example.app:/cb"), grant_types=("authorization_code",),
             scopes=("charges:read",), name="SPA")
TENANT = Tenant("t", "T", ("usd",), frozenset({"charges:refund"}), frozenset({"web", "spa"}))


def q(**params: str | list[str]) -> dict[str, list[str]]:
    return {k: v if isinstance(v, list) else [v] for k, v in params.items()}


def code_of(fn, *args) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(ApiError) as info:
        fn(*args)
    return info.value.code, info.value.detail


def test_empty_value_is_absent_and_repeat_is_invalid_request() -> None:
    assert single(q(a=""), "a") is None
    assert single(q(a="1"), "a") == "1"
    assert code_of(single, q(a=["1", "1"]), "a") == ("invalid_request", "The a parameter is repeated (RFC 6749 3.1).")


def test_client_id_rules() -> None:
    assert client_id_of(q(client_id="web")) == "web"
    assert code_of(client_id_of, q())[0] == "invalid_request"
    assert code_of(client_id_of, q(client_id="x" * 201))[0] == "invalid_request"
    assert code_of(client_id_of, q(client_id="a\tb"))[0] == "invalid_request"


def test_resolve_target_is_exact_match_only() -> None:
    target = resolve_target(q(state="s"), WEB)
    assert (target.redirect_uri, target.redirect_uri_sent, target.state) == ("https://app.example/cb", False, "s")
    assert resolve_target(q(redirect_uri="com.example.app:/cb"), SPA).redirect_uri == "com.example.app:/cb"
    assert code_of(resolve_target, q(), SPA)[0] == "invalid_request"  # two registered, none sent
    assert code_of(resolve_target, q(redirect_uri="https://APP.example/cb"), WEB)[0] == "redirect_uri_mismatch"
    assert code_of(resolve_target, q(), None)[0] == "unknown_client"


def test_a_client_of_another_environment_is_named_as_such() -> None:
    """Read in any environment, a client registered elsewhere gets its own page, not "unknown"."""

    staging = WEB._replace(environment="staging")
    assert code_of(resolve_target, q(), staging, "local")[0] == "client_of_another_environment"
    assert resolve_target(q(), WEB, "local").client is WEB
    assert code_of(resolve_target, q(), None, "local")[0] == "unknown_client"


def test_validate_happy_path_and_defaults() -> None:
    target = resolve_target(q(), WEB)
    request = validate(q(response_type="code", client_id="web"), target, TENANT)
    assert request.scopes == ("charges:read", "charges:write")  # registered minus forbidden
    assert (request.code_challenge, request.code_challenge_method) == ("", "")


@pytest.mark.parametrize("params, code", [
    (q(response_type="code", scope="charges:read"), "invalid_request"),  # public client without PKCE
    (q(response_type="code", code_challenge=CHALLENGE, code_challenge_method="plain"), "invalid_request"),
    (q(response_type="token", code_challenge=CHALLENGE, code_challenge_method="S256"), "unsupported_response_type"),
    (q(response_type="code", code_challenge=CHALLENGE, code_challenge_method="S256", scope="charges:write"),
     "invalid_scope"),
])
def test_validate_errors_for_a_public_client(params: dict[str, list[str]], code: str) -> None:
    target = resolve_target(q(redirect_uri="https://spa.example/cb"), SPA)
    assert code_of(validate, params, target, TENANT)[0] == code


def test_parse_scope() -> None:
    assert parse_scope("") == ()
    assert parse_scope("b a b") == ("b", "a")
    for bad in (" a", "a ", "a  b", 'a"b', "a\\b", "é"):
        with pytest.raises(ScopeSyntaxError):
            parse_scope(bad)
