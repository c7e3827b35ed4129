"""Scopes as an operator names them (a client's, a tenant's forbidden ones): one RFC 6749 3.3 scope token each,
and known on the stack acted on (the charges API's, the OpenID Provider's or a registered resource's)."""

from __future__ import annotations

from collections.abc import Sequence

from authgate.administration.errors import InvalidInput, quoted


def scope_token(value: str, what: str) -> str:
    """One RFC 6749 3.3 scope token (checked before a stack is looked up; `known_scopes` after)."""
    from authgate.oauth.scopes import ScopeSyntaxError, parse_scope

    try:
        if len(parse_scope(value)) == 1:
            return value
    except ScopeSyntaxError:
        pass
    raise InvalidInput(f"{what} {quoted(value)} is not one scope token (RFC 6749 3.3)")


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
