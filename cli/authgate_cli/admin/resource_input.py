"""What `authgate resources` accepts: resource URIs (RFC 8707 2), scopes (RFC 6749 3.3), tenants, descriptions."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import urlsplit

from authgate_cli.admin import arguments

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_URI = 2000
DESCRIPTION_MAX = 500


def resource_uri(value: str, *, local: bool = True) -> str:
    """An absolute https URI without fragment or userinfo; loopback http only on the local stack."""
    from authgate.oauth.redirect_uris import well_formed_uri

    if len(value) > MAX_URI or not well_formed_uri(value):
        raise arguments.InvalidInput(f"resource {value[:200]!r} is not an absolute URI in printable ASCII without "
                                      "a fragment (RFC 8707 2)")
    parts = urlsplit(value)
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise arguments.InvalidInput(f"resource {value!r} needs a host and no user information")
    if parts.scheme == "https":
        return value
    if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        if not local:
            raise arguments.InvalidInput(f"resource {value!r}: http is accepted on the local stack only; "
                                          "a deployed stage registers https resources")
        return value
    raise arguments.InvalidInput(f"resource {value!r} must be https (http only on 127.0.0.1 or localhost, "
                                  "for the local stack)")


def scopes(raw: str) -> tuple[str, ...]:
    from authgate.oauth.scopes import ScopeSyntaxError, parse_scope

    try:
        parsed = parse_scope(raw.strip())
    except ScopeSyntaxError:
        raise arguments.InvalidInput(f"--scopes {raw!r} must be scope tokens separated by single spaces "
                                      "(RFC 6749 3.3)") from None
    if not parsed:
        raise arguments.InvalidInput("--scopes must name at least one scope")
    return parsed


def tenants(raw: str) -> tuple[str, ...]:
    """Comma-separated tenant ids; empty: every tenant."""
    return tuple(dict.fromkeys(arguments.identifier(t.strip(), "tenant") for t in raw.split(",") if t.strip()))



def scope_descriptions(values: list[str], known: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """--scope-description SCOPE=TEXT (repeat): what each scope allows, as the consent page shows it; SCOPE= drops one."""
    described: dict[str, str] = {}
    for value in values:
        scope, equals, text = value.partition("=")
        if not equals or scope not in known:
            raise arguments.InvalidInput(f"--scope-description {value[:80]!r} must be SCOPE=TEXT for one of the "
                                          f"resource's scopes ({' '.join(known)})")
        described[scope] = arguments.text(text, f"--scope-description {scope}") if text else ""
    return tuple(sorted(described.items()))


def described(resource: Any, args: argparse.Namespace) -> Any:
    """`resource` with the --name, --description and --scope-description given ("" clears a name or description);
    descriptions of scopes it no longer has are dropped."""
    changes: dict[str, Any] = {}
    if getattr(args, "name", None) is not None:
        changes["name"] = arguments.text(args.name, "--name") if args.name else ""
    if getattr(args, "description", None) is not None:
        changes["description"] = (arguments.text(args.description, "--description", limit=DESCRIPTION_MAX)
                                  if args.description else "")
    merged = dict(resource.scope_descriptions)
    merged.update(scope_descriptions(getattr(args, "scope_description", None) or [], resource.scopes))
    changes["scope_descriptions"] = tuple((k, v) for k, v in sorted(merged.items()) if v and k in resource.scopes)
    return resource._replace(**changes)


def delegation_targets(values: list[str] | None, *, local: bool = True) -> tuple[str, ...] | None:
    """--may-delegate-to URI (repeat; one "" clears): the resources a token for this one may be exchanged for."""
    if values is None:
        return None
    if values == [""]:
        return ()
    return tuple(dict.fromkeys(resource_uri(v, local=local) for v in values))
