"""GET /console/resources and /console/resource?uri=U: the protected resources tokens are issued for (RFC 8707).

The list is what `authgate resources list` prints (the built-in charges API first, then every registered resource);
one resource's page what `authgate resources show` prints and more: its scopes and what each allows, its tenants,
its name and description, the resources it may exchange tokens for, its authorization_details types, its
introspection client's id (never a secret), and the actions the operator's roles allow (resource_forms).

Resources are the stack's configuration, no tenant's: `resources.view` is judged for no tenant (operators.roles:
owner, admin, auditor), before anything is read. A resource that names tenants is still one record of the stack,
which no tenant's role may see or change.
"""

from __future__ import annotations

import html

from authgate.console.pages import (
    Link,
    allow,
    definitions,
    links,
    page,
    query_value,
    section,
    table,
    url,
    when,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles
from authgate.resources.model import Resource

CURRENT = "resources"


def resource_url(request: Request, uri: str, page_name: str = "resource") -> str:
    return url(request, page_name, [("uri", uri)])


def get_resources(request: Request, signed: SignedIn) -> Response:
    allow(signed, "resources.view")
    from authgate.administration.resources import listed

    found = listed()
    rows = [(Link(resource_url(request, r.resource), r.resource) if not r.builtin else r.resource, r.name or "-",
             " ".join(r.scopes), ", ".join(r.tenants) or "all",
             "(built in)" if r.builtin else r.introspection_client_id or "-") for r in found]
    body = table(f"{len(found)} resource{'s' if len(found) != 1 else ''}",
                 ("Resource", "Name", "Scopes", "Tenants", "Introspection client"), rows)
    if roles.may(signed.operator.roles, "resources.change"):
        body = links([Link(url(request, "resources/new"), "Register a resource")]) + "\n" + body
    return page(request, signed, "Resources", body, current=CURRENT)


def get_resource(request: Request, signed: SignedIn) -> Response:
    allow(signed, "resources.view")
    uri = named(request)
    from authgate.administration.resources import get

    resource = get(uri)
    if resource is None:
        raise missing(uri)
    body = "\n".join((_about(resource), _actions(request, signed, resource), _scopes(resource),
                      _detail_types(resource)))
    return page(request, signed, resource.name or resource.resource, body, current=CURRENT)


def named(request: Request) -> str:
    """The resource the query names (?uri=), required."""
    uri = query_value(request, "uri", 2000)
    if not uri:
        raise ApiError("invalid_request", "Name the resource with uri.")
    return uri


def missing(uri: str) -> ApiError:
    return ApiError("not_found", f"There is no resource {uri[:200]!r}.")


def _about(resource: Resource) -> str:
    return definitions("Resource", [
        ("Resource", resource.resource), ("Name", resource.name or "-"), ("Description", resource.description or "-"),
        ("Tenants", ", ".join(resource.tenants) or "all"),
        ("Introspection client", resource.introspection_client_id or "-"),
        ("May delegate to", " ".join(resource.may_delegate_to) or "-"), ("Registered", when(resource.created_at))])


def _actions(request: Request, signed: SignedIn, resource: Resource) -> str:
    if not roles.may(signed.operator.roles, "resources.change"):
        return ""
    return section("Actions", links([Link(resource_url(request, resource.resource, "resource/edit"), "Change"),
                                     Link(resource_url(request, resource.resource, "resource/delete"), "Delete")]))


def _scopes(resource: Resource) -> str:
    return definitions("Scopes", [(scope, resource.describes(scope) or "(shown by its name)")
                                  for scope in resource.scopes])


def _detail_types(resource: Resource) -> str:
    if not resource.authorization_details_types:
        return section("Authorization details types", "<p>None of its own.</p>")
    return section("Authorization details types", "\n".join(
        f"<h3>{html.escape(name)}</h3>\n<pre>{html.escape(schema)}</pre>"
        for name, schema in resource.authorization_details_types))
