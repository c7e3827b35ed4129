"""What an administrator asks of a client's registration, and its checks: one implementation for `authgate clients
create|update` and the console's forms, with the same messages.

`Asked` is what is asked of a registration, by the names of the command's options (a form's fields are read into
the same); its checks are dynamic registration's (RFC 7591 2): the syntax first (`check_create`, `check_update`:
before a command looks up any stack), then against the stack acted on (the ID-token algorithms it offers, whether
it takes loopback URLs). A refusal is administration.input.InvalidInput, whose message both callers show as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from authgate.administration import input as checks
from authgate.administration.input import InvalidInput
from authgate.clients.model import ID_TOKEN_ALGS


class Asked(NamedTuple):
    """What a registration asks for, by the names of `authgate clients create|update`'s options (None, (): not
    asked). `jwks` is a JWK Set's JSON."""

    client_id: str | None = None
    tenant: str = ""
    type: str = "confidential"
    name: str | None = None
    redirect_uri: Sequence[str] = ()
    grant: Sequence[str] = ()
    scope: Sequence[str] = ()
    error_format: str = "problem"
    requires_admin_approval: bool = False
    jwks: str | None = None
    auth_method: str | None = None
    profile: str | None = None
    post_logout_redirect_uri: Sequence[str] = ()
    backchannel_logout_uri: str | None = None
    backchannel_logout_session_required: bool | None = None
    id_token_signed_response_alg: str | None = None
    require_par: bool | None = None
    resource_scopes: Sequence[str] = ()


# What `update` changes (each the option of the field's name); at least one must be asked.
CHANGES = ("name", "grant", "jwks", "auth_method", "profile", "post_logout_redirect_uri", "backchannel_logout_uri",
           "backchannel_logout_session_required", "id_token_signed_response_alg", "require_par", "resource_scopes")


def registration(asked: Asked, client_type: str, redirect_uris: Sequence[str], grants: Sequence[str],
                 current_keys: tuple[dict[str, Any], ...] = (), current_method: str = "", allow_loopback: bool = True,
                 id_token_algs: tuple[str, ...] = ID_TOKEN_ALGS) -> dict[str, Any]:
    """The authentication and profile attributes asked for, checked (RFC 7591 2). `allow_loopback`: whether the
    stack takes a loopback backchannel_logout_uri, `id_token_algs` the ID-token algorithms it offers (before the stack
    is known: syntax only, every algorithm authgate can offer)."""
    keys = checks.jwks(asked.jwks) if asked.jwks else current_keys
    method = asked.auth_method or current_method
    if asked.profile == "fapi2":
        checks.fapi2_registration(client_type, method, keys, redirect_uris, grants)
        method = "private_key_jwt"
    if method == "private_key_jwt" and not keys:
        raise InvalidInput("private_key_jwt needs the client's public keys: give --jwks FILE|JSON")
    if method == "none" and client_type != "public" or client_type == "public" and method not in ("", "none"):
        raise InvalidInput("a public client authenticates with none, and only a public client does")
    out: dict[str, Any] = {"jwks": keys, "token_endpoint_auth_method": method}
    if asked.post_logout_redirect_uri:
        for uri in asked.post_logout_redirect_uri:
            checks.redirect_uri(uri)
        out["post_logout_redirect_uris"] = tuple(dict.fromkeys(asked.post_logout_redirect_uri))
    out.update(_backchannel_logout(asked, allow_loopback))
    if asked.id_token_signed_response_alg is not None:
        out["id_token_signed_response_alg"] = _id_token_alg(asked.id_token_signed_response_alg, id_token_algs)
    if asked.profile is not None:
        out["profile"] = "" if asked.profile == "none" else asked.profile
    if asked.profile == "fapi2":
        out["dpop_bound_access_tokens"] = True  # FAPI 2.0 5.3.2.1 items 4-5 (the runtime insists anyway)
    if asked.require_par is not None or asked.profile == "fapi2":
        out["require_pushed_authorization_requests"] = asked.profile == "fapi2" or bool(asked.require_par)
    return out


def _backchannel_logout(asked: Asked, allow_loopback: bool) -> dict[str, Any]:
    """--backchannel-logout-uri ("" removes it on update) and --backchannel-logout-session-required
    (OpenID Connect Back-Channel Logout 1.0 2.2), checked as dynamic registration checks them."""
    from authgate.clients.backchannel_logout import uri_problem

    out: dict[str, Any] = {}
    uri = asked.backchannel_logout_uri
    if uri:
        problem = uri_problem(uri, allow_loopback=allow_loopback)
        if problem:
            raise InvalidInput(problem.replace("backchannel_logout_uri", "--backchannel-logout-uri", 1))
    if uri is not None:
        out["backchannel_logout_uri"] = uri
    if asked.backchannel_logout_session_required is not None:
        out["backchannel_logout_session_required"] = asked.backchannel_logout_session_required
    return out


def _id_token_alg(alg: str, offered: tuple[str, ...]) -> str:
    """--id-token-signed-response-alg, one the stack offers (OIDC Dynamic Client Registration 1.0 2)."""
    if alg == "none":
        raise InvalidInput("--id-token-signed-response-alg none is refused: ID tokens of the authorization "
                           "code flow are signed (OpenID Connect Core 3.1.3.7)")
    if alg not in offered:
        where = "" if offered == ID_TOKEN_ALGS else " (this stack's id_token_signing_alg_values_supported)"
        raise InvalidInput(f"--id-token-signed-response-alg must be one of {', '.join(offered)}{where}")
    return alg


def offered_id_token_algs() -> tuple[str, ...]:
    """The ID-token algorithms the stack acted on offers (its SigningAlgorithm and RS256)."""
    from authgate.settings import get_settings

    return get_settings().id_token_algs


def loopback_allowed() -> bool:
    """Whether the stack acted on takes loopback URLs (the local stack's development exception)."""
    from authgate.settings import get_settings

    return get_settings().allow_loopback_outbound


def check_create(asked: Asked) -> Asked:
    """What `create` is asked, its syntax checked before any stack is looked up; its grants by their stored name."""
    if asked.client_id is not None:
        checks.identifier(asked.client_id, "--client-id")
    checks.identifier(asked.tenant, "--tenant")
    if asked.name is not None:
        checks.text(asked.name, "--name")
    for uri in asked.redirect_uri:
        checks.redirect_uri(uri)
    for scope in asked.scope:
        checks.scope_token(scope, "--scope")
    asked = asked._replace(grant=[checks.grant_type(g) for g in asked.grant])
    checks.client_grants(asked.grant, asked.type, asked.redirect_uri)
    registration(asked, asked.type, asked.redirect_uri, asked.grant)
    resource_grants(asked)
    return asked


def check_update(asked: Asked) -> Asked:
    """What `update` is asked, its syntax checked before any stack is looked up (something to change: `changes`)."""
    if asked.name is not None:
        checks.text(asked.name, "--name")
    if asked.jwks:
        checks.jwks(asked.jwks)
    asked = asked._replace(grant=[checks.grant_type(g) for g in asked.grant])
    resource_grants(asked)
    return asked


def changes(asked: Asked) -> bool:
    """Whether `asked` changes anything an update may."""
    return any(getattr(asked, change) not in (None, [], ()) for change in CHANGES)


def resource_grants(asked: Asked) -> list[tuple[str, tuple[str, ...]]]:
    """--resource-scopes, parsed (each "RESOURCE=SCOPES")."""
    return [checks.resource_scopes(value) for value in asked.resource_scopes]
