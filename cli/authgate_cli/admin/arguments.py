"""What admin commands accept, checked before any stack is looked up: one clear reason per refusal.

Identifiers (client ids, tenant ids) are printable ASCII without spaces (RFC 6749 A.1 allows
spaces in a client_id; nothing here needs them, and they break shell scripts and logs). Names
and usernames are text without control characters (no terminal escapes, no line breaks that
would forge a log line). Redirect URIs are checked as the authorization endpoint will compare
them: absolute, no fragment, printable ASCII, valid percent-escapes (RFC 6749 3.1.2). What the console's
forms take too (identifiers, names, emails) is checked in authgate.operators.input, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from authgate import grant_types
from authgate.operators import input as operator_input
from authgate.operators.input import shown as _shown

# The checks every command shares with the console's forms (authgate.operators.input), by their names here.
InvalidInput = operator_input.InvalidInput
identifier, text, email = operator_input.identifier, operator_input.text, operator_input.email


def redirect_uri(value: str) -> str:
    from authgate.oauth.redirect_uris import redirect_scheme_allowed, well_formed_uri

    if not well_formed_uri(value):
        raise InvalidInput(f"redirect URI {_shown(value)} is not an absolute URI in printable ASCII without a "
                           "fragment or a backslash (RFC 6749 3.1.2); it must be exactly what the application will "
                           "send")
    if not redirect_scheme_allowed(value):
        raise InvalidInput(f"redirect URI {_shown(value)} must be https (plain http only on a loopback address "
                           "such as http://127.0.0.1:PORT/..., RFC 8252 7.3) or a native app's private-use scheme "
                           "such as com.example.app:/callback (RFC 8252 7.1): a code sent over plain http to "
                           "another host can be read on the way (RFC 9700 2.1, 4.1)")
    return value


# The stack's grant types (authgate.grant_types); one named by a URN is also taken by the URN's last part
# (`--grant jwt-bearer`, `--grant device_code`).
GRANT_URNS = {urn.rsplit(":", 1)[1]: urn for urn in grant_types.GRANT_TYPES if urn.startswith("urn:")}
GRANT_NAMES = tuple(name for name in grant_types.GRANT_TYPES if not name.startswith("urn:")) + tuple(GRANT_URNS)


def grant_type(value: str) -> str:
    """--grant: a grant type by its name (RFC 6749), its URN, or the URN's short name; the stored value is the URN."""
    if value in GRANT_URNS:
        return GRANT_URNS[value]
    if value in GRANT_NAMES or value in GRANT_URNS.values():
        return value
    raise InvalidInput(f"--grant {_shown(value)} is not a grant type: one of {', '.join(GRANT_NAMES)}, or the URN "
                       f"of the last {len(GRANT_URNS)}")


def client_grants(grants: Sequence[str], client_type: str, redirect_uris: Sequence[str]) -> None:
    """The grants a client may be registered for, given its type and redirect URIs (RFC 6749 2.1, 3.1.2.2)."""
    if not grants:
        raise InvalidInput("give at least one --grant (authorization_code, refresh_token, client_credentials, "
                           "password, jwt-bearer)")
    if client_type == "public" and grant_types.CIBA in grants:
        raise InvalidInput("a public client cannot use ciba: only confidential clients may make backchannel "
                           "authentication requests (OpenID Connect CIBA Core 7.1)")
    if grant_types.TOKEN_EXCHANGE in grants:
        raise InvalidInput("token-exchange is not a client's grant: a registered resource's own credentials "
                           "exchange tokens (authgate resources update RESOURCE --may-delegate-to OTHER)")
    if client_type == "public" and grant_types.JWT_BEARER in grants:
        raise InvalidInput("a public client cannot present ID-JAGs (jwt-bearer): only confidential clients may "
                           "(draft-ietf-oauth-identity-assertion-authz-grant, Security Considerations)")
    if "authorization_code" in grants and not redirect_uris:
        raise InvalidInput("the authorization_code grant needs at least one --redirect-uri "
                           "(the code is sent back there, RFC 6749 3.1.2.2)")
    if redirect_uris and "authorization_code" not in grants:
        raise InvalidInput("--redirect-uri is only used by the authorization_code grant; add --grant "
                           "authorization_code or drop the redirect URIs")
    if "refresh_token" in grants and not {"authorization_code", "password", grant_types.DEVICE_CODE,
                                          grant_types.CIBA} & set(grants):
        raise InvalidInput("the refresh_token grant needs authorization_code, password, device_code or ciba: "
                           "refresh tokens are only issued with those")
    if client_type == "public" and "client_credentials" in grants:
        raise InvalidInput("a public client cannot use client_credentials: it has no secret (RFC 6749 4.4)")


def served_grants(grants: Sequence[str]) -> None:
    """No client for a grant the stack's token endpoint refuses: the password grant is off unless the stage
    enables it (PasswordGrantEnabled; locally AUTHGATE_PASSWORD_GRANT), checked once the stack is known."""
    from authgate.settings import get_settings

    if "password" in grants and not get_settings().password_grant:
        raise InvalidInput("the password grant is off on this stack (its token endpoint answers "
                           "unsupported_grant_type): deploy with PasswordGrantEnabled=true, or start `authgate "
                           "serve` with AUTHGATE_PASSWORD_GRANT=true, before registering a client for it")


def scope_token(value: str, what: str) -> str:
    """One RFC 6749 3.3 scope token (checked before a stack is looked up; `known_scopes` after)."""
    from authgate.oauth.scopes import ScopeSyntaxError, parse_scope

    try:
        if len(parse_scope(value)) == 1:
            return value
    except ScopeSyntaxError:
        pass
    raise InvalidInput(f"{what} {_shown(value)} is not one scope token (RFC 6749 3.3)")


def known_scopes(values: Sequence[str]) -> None:
    """Every scope is the charges API's, the OpenID Provider's (docs/oidc.md) or a registered resource's on the
    stack the command acts on."""
    from authgate.oauth.scopes import IDENTITY_SCOPES, KNOWN_SCOPES

    unknown = [s for s in values if s not in KNOWN_SCOPES and s not in IDENTITY_SCOPES]
    if not unknown:
        return
    from authgate.stores.resources import ResourceStore

    registered = [s for r in sorted(ResourceStore().list()) for s in r.scopes]
    known = list(dict.fromkeys([*KNOWN_SCOPES, *IDENTITY_SCOPES, *registered]))
    unknown = [s for s in unknown if s not in known]
    if unknown:
        raise InvalidInput(f"unknown scope {unknown[0]!r}; known: {' '.join(known)}")


def resource_scopes(value: str) -> tuple[str, tuple[str, ...]]:
    """--resource-scopes "RESOURCE=scope1 scope2": a registered resource's URI and the scopes granted of it
    (none after "=": the grant is withdrawn). Checked on the stack by `granted_resources`."""
    from authgate.oauth.redirect_uris import well_formed_uri
    from authgate.oauth.scopes import ScopeSyntaxError, parse_scope

    uri, equals, raw = value.partition("=")
    if not equals or not well_formed_uri(uri.strip()):
        raise InvalidInput(f"--resource-scopes {_shown(value)} must be RESOURCE=SCOPES, a registered resource's URI "
                           'and its scopes: "https://mcp.example.com/mcp=mcp:read mcp:write"')
    try:
        return uri.strip(), parse_scope(raw.strip())
    except ScopeSyntaxError:
        raise InvalidInput(f"--resource-scopes {_shown(value)}: the scopes must be scope tokens separated by single "
                           "spaces (RFC 6749 3.3)") from None


def granted_resources(grants: Sequence[tuple[str, tuple[str, ...]]]) -> None:
    """Each granted resource is registered on the stack, and each scope is one of its own."""
    from authgate.oauth.resource_indicator import builtin_resource
    from authgate.settings import get_settings
    from authgate.stores.resources import ResourceStore

    builtin = builtin_resource(get_settings().issuer).resource if get_settings().issuer else None
    store = ResourceStore()
    for uri, scopes in grants:
        if uri.rstrip("/") == builtin:
            raise InvalidInput(f"{uri} is the charges API: its scopes are granted with --scope")
        resource = store.get(uri)
        if resource is None:
            raise InvalidInput(f"--resource-scopes: no resource {uri!r} is registered here (see `authgate resources "
                               "list`)")
        unknown = [s for s in scopes if s not in resource.scopes]
        if unknown:
            raise InvalidInput(f"--resource-scopes: {unknown[0]!r} is not a scope of {uri}; its scopes: "
                               f"{' '.join(resource.scopes)}")


def with_grants(current: Sequence[tuple[str, tuple[str, ...]]],
                changes: Sequence[tuple[str, tuple[str, ...]]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A client's resource grants after `changes`: each replaces its resource's grant; no scopes withdraws it."""
    merged = dict(current)
    for uri, scopes in changes:
        if scopes:
            merged[uri] = scopes
        else:
            merged.pop(uri, None)
    return tuple(sorted(merged.items()))


def jwks(value: str) -> tuple[dict[str, Any], ...]:
    """--jwks: a JWK Set as JSON, or the path of a file holding one; public signing keys only (RFC 7591 2)."""
    import json
    from pathlib import Path

    from authgate.tokens.client_keys import InvalidJwks, validate

    text_value = value
    if not value.lstrip().startswith("{"):
        try:
            text_value = Path(value).read_text("utf-8")
        except OSError as exc:
            raise InvalidInput(f"--jwks {_shown(value)} is neither a JSON JWK Set nor a readable file ({exc.strerror})") from None
    try:
        document = json.loads(text_value)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--jwks is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    try:
        return validate(document)
    except InvalidJwks as exc:
        raise InvalidInput(f"--jwks: {exc}") from None


def fapi2_registration(client_type: str, auth_method: str, keys: Sequence[dict[str, Any]],
                       redirect_uris: Sequence[str], grants: Sequence[str]) -> None:
    """What the fapi2 profile needs of a registration (FAPI 2.0 5.3.2.1, 5.3.2.2)."""
    from authgate.oauth.clients.profile import fapi2_redirect_uri_allowed

    if client_type != "confidential":
        raise InvalidInput("--profile fapi2 needs a confidential client (FAPI 2.0 5.3.2.1)")
    if auth_method not in ("", "private_key_jwt"):
        raise InvalidInput("--profile fapi2 authenticates with private_key_jwt only, not " + auth_method)
    if not keys:
        raise InvalidInput("--profile fapi2 needs the client's public keys: give --jwks FILE|JSON "
                           "(private_key_jwt, FAPI 2.0 5.3.2.1)")
    bad = [uri for uri in redirect_uris if not fapi2_redirect_uri_allowed(uri)]
    if bad:
        raise InvalidInput(f"--profile fapi2: redirect URI {_shown(bad[0])} must be https (http only on a loopback "
                           "address, for local development)")
    if "password" in grants:
        raise InvalidInput("--profile fapi2 does not allow the password grant")
