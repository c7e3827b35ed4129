"""What `authgate clients` accepts: the registration attributes its arguments ask for, checked as dynamic
registration checks them (RFC 7591 2), before any stack is looked up and again against the stack acted on."""

from __future__ import annotations

import argparse
from typing import Any

from authgate.clients.model import ID_TOKEN_ALGS
from authgate_cli.admin import arguments


def registration(args: argparse.Namespace, client_type: str, redirect_uris: list[str] | tuple[str, ...],
                  grants: list[str] | tuple[str, ...], current_keys: tuple[dict[str, Any], ...] = (),
                  current_method: str = "", allow_loopback: bool = True,
                  id_token_algs: tuple[str, ...] = ID_TOKEN_ALGS) -> dict[str, Any]:
    """The authentication and profile attributes the arguments ask for, checked (RFC 7591 2). `allow_loopback`:
    whether the target stack takes a loopback backchannel_logout_uri, `id_token_algs` the ID-token algorithms it
    offers (before the stack is known: syntax only, every algorithm authgate can offer)."""
    keys = arguments.jwks(args.jwks) if getattr(args, "jwks", None) else current_keys
    method = getattr(args, "auth_method", None) or current_method
    profile = getattr(args, "profile", None)
    if profile == "fapi2":
        arguments.fapi2_registration(client_type, method, keys, redirect_uris, grants)
        method = "private_key_jwt"
    if method == "private_key_jwt" and not keys:
        raise arguments.InvalidInput("private_key_jwt needs the client's public keys: give --jwks FILE|JSON")
    if method == "none" and client_type != "public" or client_type == "public" and method not in ("", "none"):
        raise arguments.InvalidInput("a public client authenticates with none, and only a public client does")
    out: dict[str, Any] = {"jwks": keys, "token_endpoint_auth_method": method}
    logout_uris = getattr(args, "post_logout_redirect_uri", None)
    if logout_uris:
        for uri in logout_uris:
            arguments.redirect_uri(uri)
        out["post_logout_redirect_uris"] = tuple(dict.fromkeys(logout_uris))
    out.update(_backchannel_logout(args, allow_loopback))
    alg = getattr(args, "id_token_signed_response_alg", None)
    if alg is not None:
        out["id_token_signed_response_alg"] = _id_token_alg(alg, id_token_algs)
    if profile is not None:
        out["profile"] = "" if profile == "none" else profile
    if profile == "fapi2":
        out["dpop_bound_access_tokens"] = True  # FAPI 2.0 5.3.2.1 items 4-5 (the runtime insists anyway)
    if getattr(args, "require_par", None) is not None or profile == "fapi2":
        out["require_pushed_authorization_requests"] = profile == "fapi2" or bool(args.require_par)
    return out


def _backchannel_logout(args: argparse.Namespace, allow_loopback: bool) -> dict[str, Any]:
    """--backchannel-logout-uri ("" removes it on update) and --backchannel-logout-session-required
    (OpenID Connect Back-Channel Logout 1.0 2.2), checked as dynamic registration checks them."""
    from authgate.clients.backchannel_logout import uri_problem

    out: dict[str, Any] = {}
    uri = getattr(args, "backchannel_logout_uri", None)
    if uri:
        problem = uri_problem(uri, allow_loopback=allow_loopback)
        if problem:
            raise arguments.InvalidInput(problem.replace("backchannel_logout_uri", "--backchannel-logout-uri", 1))
    if uri is not None:
        out["backchannel_logout_uri"] = uri
    required = getattr(args, "backchannel_logout_session_required", None)
    if required is not None:
        out["backchannel_logout_session_required"] = required
    return out


def _id_token_alg(alg: str, offered: tuple[str, ...]) -> str:
    """--id-token-signed-response-alg, one the target stack offers (OIDC Dynamic Client Registration 1.0 2)."""
    if alg == "none":
        raise arguments.InvalidInput("--id-token-signed-response-alg none is refused: ID tokens of the authorization "
                                     "code flow are signed (OpenID Connect Core 3.1.3.7)")
    if alg not in offered:
        where = "" if offered == ID_TOKEN_ALGS else " (this stack's id_token_signing_alg_values_supported)"
        raise arguments.InvalidInput(f"--id-token-signed-response-alg must be one of {', '.join(offered)}{where}")
    return alg


def offered_id_token_algs() -> tuple[str, ...]:
    """The ID-token algorithms the stack now targeted offers (its SigningAlgorithm and RS256)."""
    from authgate.settings import get_settings

    return get_settings().id_token_algs


def loopback_allowed() -> bool:
    """Whether the stack now targeted takes loopback URLs (the local stack's development exception)."""
    from authgate.settings import get_settings

    return get_settings().allow_loopback_outbound


def check_create(args: argparse.Namespace) -> None:
    """Refuse bad arguments before any stack is looked up (InvalidInput names the problem)."""
    if args.client_id is not None:
        arguments.identifier(args.client_id, "--client-id")
    arguments.identifier(args.tenant, "--tenant")
    if args.name is not None:
        arguments.text(args.name, "--name")
    for uri in args.redirect_uri:
        arguments.redirect_uri(uri)
    for scope in args.scope:
        arguments.scope_token(scope, "--scope")
    args.grant = [arguments.grant_type(g) for g in args.grant]
    arguments.client_grants(args.grant, args.type, args.redirect_uri)
    registration(args, args.type, args.redirect_uri, args.grant)
    resource_grants(args)


def resource_grants(args: argparse.Namespace) -> list[tuple[str, tuple[str, ...]]]:
    """--resource-scopes, parsed (each "RESOURCE=SCOPES")."""
    return [arguments.resource_scopes(value) for value in getattr(args, "resource_scopes", None) or []]
