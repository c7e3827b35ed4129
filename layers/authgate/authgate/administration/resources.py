"""Registering the APIs tokens are issued for (RFC 8707): what `authgate resources` and the console's resource pages
both call, with the same checks and the same sentences.

A resource is an absolute https URI without fragment (on the local stack, loopback http too), its scopes (RFC 6749
3.3), the tenants that may use it (none: every tenant), what the consent page says of it, the resources its server
may exchange its tokens for (RFC 8693) and its own authorization_details types (RFC 9396 2). `create` also registers
its introspection client (RFC 7662 2.1) and returns that client's secret, which is shown once and stored only as a
hash. The charges API (`<issuer>/charges`) is built in and never registered. A refusal is `InvalidInput` (the
command's exit status 2), a URI already registered `ResourceExists` (status 1), one that is not `ResourceNotFound`.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from authgate.administration.input import InvalidInput, identifier, text
from authgate.administration.unknown import existing_tenants
from authgate.resources.errors import ResourceExists, ResourceNotFound
from authgate.resources.model import Resource

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_URI = 2000
DESCRIPTION_MAX = 500


def resource_uri(value: str, *, local: bool = True) -> str:
    """An absolute https URI without fragment or userinfo; loopback http only on the local stack."""
    from authgate.oauth.redirect_uris import well_formed_uri

    if len(value) > MAX_URI or not well_formed_uri(value):
        raise InvalidInput(f"resource {value[:200]!r} is not an absolute URI in printable ASCII without "
                           "a fragment (RFC 8707 2)")
    parts = urlsplit(value)
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise InvalidInput(f"resource {value!r} needs a host and no user information")
    if parts.scheme == "https":
        return value
    if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        if not local:
            raise InvalidInput(f"resource {value!r}: http is accepted on the local stack only; "
                               "a deployed stage registers https resources")
        return value
    raise InvalidInput(f"resource {value!r} must be https (http only on 127.0.0.1 or localhost, "
                       "for the local stack)")


def scopes(raw: str) -> tuple[str, ...]:
    from authgate.oauth.scopes import ScopeSyntaxError, parse_scope

    try:
        parsed = parse_scope(raw.strip())
    except ScopeSyntaxError:
        raise InvalidInput(f"--scopes {raw!r} must be scope tokens separated by single spaces "
                           "(RFC 6749 3.3)") from None
    if not parsed:
        raise InvalidInput("--scopes must name at least one scope")
    return parsed


def tenants(raw: str) -> tuple[str, ...]:
    """Comma-separated tenant ids; empty: every tenant."""
    return tuple(dict.fromkeys(identifier(t.strip(), "tenant") for t in raw.split(",") if t.strip()))


def scope_descriptions(values: Sequence[str], known: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """SCOPE=TEXT each: what each scope allows, as the consent page shows it; SCOPE= drops one."""
    described: dict[str, str] = {}
    for value in values:
        scope, equals, words = value.partition("=")
        if not equals or scope not in known:
            raise InvalidInput(f"--scope-description {value[:80]!r} must be SCOPE=TEXT for one of the "
                               f"resource's scopes ({' '.join(known)})")
        described[scope] = text(words, f"--scope-description {scope}") if words else ""
    return tuple(sorted(described.items()))


class Wording(NamedTuple):
    """What the consent page says of a resource, as given: None leaves a name or description as it is ("" clears
    it); each of `scopes` is SCOPE=TEXT (SCOPE= drops one)."""

    name: str | None = None
    description: str | None = None
    scopes: Sequence[str] = ()


def described(resource: Resource, wording: Wording) -> Resource:
    """`resource` with `wording`; descriptions of scopes it no longer has are dropped."""
    changes: dict[str, Any] = {}
    if wording.name is not None:
        changes["name"] = text(wording.name, "--name") if wording.name else ""
    if wording.description is not None:
        changes["description"] = (text(wording.description, "--description", limit=DESCRIPTION_MAX)
                                  if wording.description else "")
    merged = dict(resource.scope_descriptions)
    merged.update(scope_descriptions(wording.scopes, resource.scopes))
    changes["scope_descriptions"] = tuple((k, v) for k, v in sorted(merged.items()) if v and k in resource.scopes)
    return resource._replace(**changes)


def delegation_targets(values: Sequence[str] | None, *, local: bool = True) -> tuple[str, ...] | None:
    """The resources a token for this one may be exchanged for (None: unchanged; one "" clears)."""
    if values is None:
        return None
    if list(values) == [""]:
        return ()
    return tuple(dict.fromkeys(resource_uri(v, local=local) for v in values))


def type_name(name: str) -> str:
    """The name of an authorization_details type (RFC 9396 2) a resource may declare."""
    from authgate.authorization_details.charge import TYPE
    from authgate.authorization_details.model import TYPE_NAME

    if not TYPE_NAME.fullmatch(name):
        raise InvalidInput(f"authorization details type {name[:64]!r} must be 1-128 visible characters "
                           "without spaces")
    if name == TYPE:
        raise InvalidInput(f"{TYPE!r} is the charges API's own type; name this resource's type otherwise")
    return name


def detail_type(name: str, schema: str, where: str) -> tuple[str, str]:
    """A type's name and its JSON Schema (Draft 2020-12) as compact JSON; `where` names the schema in a refusal
    ("--schema 'FILE'")."""
    type_name(name)
    from authgate import strict_json
    from authgate.authorization_details.errors import SchemaInvalid
    from authgate.authorization_details.registered import check_schema

    try:
        parsed = strict_json.loads(schema)
        check_schema(parsed)
    except SchemaInvalid as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    except ValueError as exc:
        raise InvalidInput(f"{where} is not JSON: {exc}") from None
    return name, json.dumps(parsed, separators=(",", ":"), sort_keys=True)


def detail_types(resource: Resource, added: tuple[str, str] | None,
                 removed: str | None) -> tuple[tuple[str, str], ...]:
    """The resource's types with `added` (declared or replaced) and without `removed`."""
    types = dict(resource.authorization_details_types)
    if added is not None:
        types[added[0]] = added[1]
    if removed is not None:
        if removed not in types:
            raise InvalidInput(f"the resource has no authorization details type {removed[:64]!r}")
        del types[removed]
    return tuple(sorted(types.items()))


def builtin() -> Resource | None:
    """The charges API of the stack acted on (its issuer is in the stack's environment), if known."""
    from authgate.oauth.resource_indicator import builtin_resource
    from authgate.settings import get_settings

    issuer = get_settings().issuer
    return builtin_resource(issuer) if issuer else None


def listed() -> list[Resource]:
    """The charges API first, then every registered resource by URI."""
    from authgate.stores.resources import ResourceStore

    found = builtin()
    return ([found] if found is not None else []) + sorted(ResourceStore().list(), key=lambda r: r.resource)


def get(uri: str) -> Resource | None:
    from authgate.stores.resources import ResourceStore

    return ResourceStore().get(uri)


def _unknown_target(targets: tuple[str, ...], charges: Resource | None) -> str | None:
    """The first delegation target that is neither registered nor the built-in charges API."""
    from authgate.stores.resources import ResourceStore

    store = ResourceStore()
    return next((t for t in targets if not (charges is not None and t == charges.resource) and store.get(t) is None),
                None)


def _not_registered(target: str) -> InvalidInput:
    return InvalidInput(f"--may-delegate-to {target!r} is not a registered resource (see `authgate resources list`)")


class Created(NamedTuple):
    """A registered resource and its introspection client's secret (shown once, stored only as a hash)."""

    resource: Resource
    secret: str | None


def create(uri: str, scope_list: str, tenant_list: str = "", wording: Wording | None = None,
           may_delegate_to: Sequence[str] | None = None, *, local: bool) -> Created:
    """Register `uri` with its scopes and tenants, and its introspection client (RFC 7662 2.1)."""
    from authgate import clock
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    uri = resource_uri(uri, local=local)
    charges = builtin()
    if charges is not None and uri.rstrip("/") == charges.resource:
        raise InvalidInput(f"{charges.resource} is the charges API, built in: it needs no registration")
    allowed = tenants(tenant_list)
    existing_tenants(allowed)
    targets = delegation_targets(may_delegate_to, local=local) or ()
    stranger = _unknown_target(targets, charges)
    if stranger:
        raise _not_registered(stranger)
    wanted = scopes(scope_list)
    wording = wording or Wording()
    described(Resource(uri, wanted), wording)  # refused before anything is written
    store = ResourceStore()
    if store.get(uri) is not None:
        raise ResourceExists(f"resource {uri!r} is already registered")
    client, secret = ClientStore().create(
        client_id=f"rs-{secrets.token_hex(8)}", tenant_id=allowed[0] if allowed else "",
        name=f"introspection for {uri}"[:200], client_type="confidential", grant_types=(), scopes=())
    resource = described(Resource(resource=uri, scopes=wanted, tenants=allowed,
                                  introspection_client_id=client.client_id, created_at=clock.seconds(),
                                  may_delegate_to=targets), wording)
    try:
        store.create(resource)
    except ResourceExists:
        raise ResourceExists(f"resource {uri!r} is already registered") from None
    return Created(resource, secret)


class Change(NamedTuple):
    """What an update changes (None: unchanged): scopes, tenants ("" every tenant), the wording, the delegation
    targets, a type declared (name and schema, checked: `detail_type`) or withdrawn."""

    scopes: str | None = None
    tenants: str | None = None
    wording: Wording = Wording()
    may_delegate_to: Sequence[str] | None = None
    detail_type: tuple[str, str] | None = None
    remove_detail_type: str | None = None


def update(uri: str, change: Change, *, local: bool) -> Resource:
    """The resource with `change` made, as stored."""
    from authgate.stores.resources import ResourceStore

    changes: dict[str, Any] = {}
    if change.tenants is not None:
        allowed = tenants(change.tenants)
        existing_tenants(allowed)
        changes["tenants"] = allowed
    resource = get(uri)
    if resource is None:
        raise ResourceNotFound(uri)
    if change.scopes is not None:
        changes["scopes"] = scopes(change.scopes)
    targets = delegation_targets(change.may_delegate_to, local=local)
    if targets is not None:
        stranger = _unknown_target(targets, builtin())
        if stranger:
            raise _not_registered(stranger)
        if resource.resource in targets:
            raise InvalidInput("a resource cannot delegate to itself")
        changes["may_delegate_to"] = targets
    types = detail_types(resource, change.detail_type, change.remove_detail_type)
    updated = described(resource._replace(**changes, authorization_details_types=types), change.wording)
    ResourceStore().update(updated)
    return updated


def delete(uri: str) -> Resource:
    """Remove the resource and its introspection client; the resource as it was."""
    from authgate.stores.resources import ResourceStore

    resource = get(uri)
    if resource is None:
        raise ResourceNotFound(uri)
    ResourceStore().delete(resource)
    return resource


def deleted(resource: Resource) -> str:
    """What deleting `resource` did, as both callers say it."""
    return (f"resource {resource.resource} deleted, and its introspection client "
            f"{resource.introspection_client_id or '-'}; tokens already issued for it expire on their own")
