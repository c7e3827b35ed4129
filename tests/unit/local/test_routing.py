"""local.routing: API Gateway's resource then method selection, over the real template."""

from __future__ import annotations

import pytest

from authgate_cli.local.routing import Router
from authgate_cli.local.template import ApiRoute, api_routes

ROUTER = Router(api_routes())


@pytest.mark.parametrize("method, path, resource, event, params", [
    ("GET", "/.well-known/jwks.json", "/.well-known/jwks.json", "JwksGet", {}),
    ("POST", "/.well-known/jwks.json", "/.well-known/jwks.json", "JwksAny", {}),
    ("POST", "/charges", "/charges", "ChargesPost", {}),
    ("DELETE", "/charges", "/charges", "ChargesAny", {}),
    ("GET", "/charges/ch_123", "/charges/{id}", "ChargeGet", {"id": "ch_123"}),
    ("GET", "/charges/a%20b", "/charges/{id}", "ChargeGet", {"id": "a b"}),
    ("GET", "/charges/ch_1/refunds", "/{proxy+}", "CatchAll", {"proxy": "charges/ch_1/refunds"}),
    ("GET", "/problems/not_found", "/problems/{code}", "ProblemGet", {"code": "not_found"}),
    ("GET", "/", "/", "RootAny", {}),
    ("PATCH", "/anything/else", "/{proxy+}", "CatchAll", {"proxy": "anything/else"}),
    ("GET", "/charges/", "/charges", "ChargesList", {}),
])
def test_template_routes(method: str, path: str, resource: str, event: str, params: dict[str, str]) -> None:
    match = ROUTER.match(method, path)
    assert match is not None
    assert (match.route.path, match.route.event, match.path_params) == (resource, event, params)


@pytest.mark.parametrize("method", ["BREW", "PROPFIND", "get", "ANY"])
def test_a_method_outside_the_seven_matches_nothing_not_even_any(method: str) -> None:
    """ANY is DELETE, GET, HEAD, OPTIONS, PATCH, POST or PUT; methods are case-sensitive (RFC 9110 9.1)."""
    assert ROUTER.match(method, "/charges") is None
    assert ROUTER.match(method, "/anything") is None


def test_head_reaches_the_function_through_any_and_options_through_its_own_method() -> None:
    assert ROUTER.match("HEAD", "/.well-known/jwks.json").route.event == "JwksAny"
    assert ROUTER.match("OPTIONS", "/.well-known/jwks.json").route.event == "JwksOptions"
    assert ROUTER.match("OPTIONS", "/oauth/introspect").route.event == "IntrospectAny"


def test_api_key_flag_comes_from_the_template() -> None:
    assert ROUTER.match("POST", "/charges").route.api_key_required is True
    assert ROUTER.match("DELETE", "/charges").route.api_key_required is False
    assert ROUTER.match("GET", "/.well-known/jwks.json").route.api_key_required is False


def route(path: str, method: str) -> ApiRoute:
    return ApiRoute("F", f"{path}{method}", path, method, False)


def test_literal_beats_parameter_beats_greedy() -> None:
    router = Router([route("/a/{x}", "GET"), route("/a/b", "GET"), route("/{proxy+}", "ANY"),
                     route("/{x}/b", "GET")])
    assert router.match("GET", "/a/b").route.path == "/a/b"
    assert router.match("GET", "/a/c").route.path == "/a/{x}"
    assert router.match("GET", "/z/b").route.path == "/{x}/b"
    assert router.match("GET", "/z/y/x").route.path == "/{proxy+}"


def test_explicit_method_beats_any() -> None:
    router = Router([route("/a", "ANY"), route("/a", "GET")])
    assert router.match("GET", "/a").route.method == "GET"
    assert router.match("PUT", "/a").route.method == "ANY"


def test_resource_without_the_method_does_not_fall_through() -> None:
    """API Gateway picks the resource first; a missing method is Missing Authentication Token."""
    router = Router([route("/a", "GET"), route("/{proxy+}", "ANY")])
    assert router.match("POST", "/a") is None
    assert router.match("GET", "/nothing") is not None
    assert Router([route("/a", "GET")]).match("GET", "/b") is None
