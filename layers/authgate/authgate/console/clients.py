"""GET /console/clients?tenant=T: the clients of one tenant, of every source, a page at a time.

Allowed by `clients.view` (operators.roles: owner, admin, auditor), judged before anything is read: somewhere at all
first (a role that may nowhere is the 403 page whatever the URL), then in the tenant asked for. The tenants are every
tenant; a tenant's clients (an administrator's, a dynamically registered one (RFC 7591), a cached Client ID Metadata
Document) come PAGE_SIZE at a time in the table's order, the next page after the last client shown
(ClientStore.of_tenant). `judged` is the rule of every page of one client: the client's tenant decides.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from authgate.clients.model import Client
from authgate.console.pages import (
    Link,
    allow,
    allow_somewhere,
    chosen_tenant,
    controlled,
    links,
    page,
    query_value,
    table,
    tenant_picker,
    url,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles

PAGE_SIZE = 20
# Where a client came from (Client.source), as the console names it.
SOURCES = {"": "administrator", "registration": "dynamic registration", "metadata_document": "metadata document"}


def get_clients(request: Request, signed: SignedIn) -> Response:
    tenants, tenant = chosen_tenant(request, signed, "clients.view")
    after = query_value(request, "after")
    from authgate.stores.clients import ClientStore

    found, next_after = ClientStore().of_tenant(tenant, after=after, limit=PAGE_SIZE)
    offered = links([Link(url(request, "client-new", [("tenant", tenant)]), "Register a client")]) \
        if roles.may(signed.operator.roles, "clients.change", tenant) else ""
    body = "\n".join((tenant_picker(request, "clients", tenants, tenant, "Show its clients"), offered, _results(request, tenant, found, next_after, after)))
    return page(request, signed, "Clients", body, current="clients")


def judged(request: Request, signed: SignedIn, action: str, client_id: str) -> Client:
    """The client `client_id` once the operator's roles allow `action` somewhere (before it is read) and in its
    tenant; 400 without a client id, 404 for a client that is not there."""
    allow_somewhere(signed, action)
    if not client_id:
        raise ApiError("invalid_request", "Name the client with client_id.")
    bounded(client_id, "client_id")
    from authgate.stores.clients import ClientStore

    client = ClientStore().get(client_id, any_environment=True)
    if client is None:
        raise ApiError("not_found", f"There is no client {client_id!r}.")
    allow(signed, action, client.tenant_id)
    return client


def bounded(value: str, name: str, limit: int = 256) -> str:
    """A posted field at most `limit` characters, without control characters (as a query parameter: query_value)."""
    if len(value) > limit or controlled(value):
        raise ApiError("invalid_request", f"The {name} field is too long or holds control characters.")
    return value


# How long a form's nonce is remembered as taken: longer than any console session (ConsoleMaxAgeSeconds <= 1 day).
FORM_MEMORY = 86_400


def once(fields: Mapping[str, str]) -> None:
    """Take a posted form once: its nonce (csrf_fields) is remembered (ReplayTable), and the same form sent again
    (the answer page reloaded, a form replayed) is refused and changes nothing; a secret shown on an answer page is
    then shown once."""
    from authgate import clock
    from authgate.single_use.errors import Replayed
    from authgate.stores.replay import ReplayGuard

    try:
        ReplayGuard().use(f"console-form#{fields.get('nonce', '')}", clock.seconds() + FORM_MEMORY)
    except Replayed:
        raise ApiError("invalid_request", "This form was sent already, and its answer shown once; open the page "
                                          "again.") from None


def client_url(request: Request, client_id: str, page_name: str = "client", *extra: tuple[str, str]) -> str:
    """The URL of a client's page (or of another page of it: client-edit, client-act)."""
    return url(request, page_name, [("client_id", client_id), *extra])


def grant_names(client: Client) -> str:
    """A client's grants by their short names (the last part of a URN)."""
    return ", ".join(g.rsplit(":", 1)[-1] for g in client.grant_types) or "-"


def _results(request: Request, tenant: str, found: list[Client], next_after: str, after: str) -> str:
    e = html.escape
    if not found:
        return f'<p role="status">Tenant {e(tenant)} has no client{" after these" if after else ""}.</p>'
    more = (f'<p><a href="{e(url(request, "clients", [("tenant", tenant), ("after", next_after)]))}">'
            "Next page</a></p>") if next_after else ""
    return table(f"Clients of {tenant}" + (" (continued)" if after else ""),
                 ("Client id", "Name", "Type", "Source", "Grants"), (
                     (Link(client_url(request, c.client_id), c.client_id), c.name or "-", c.client_type,
                      SOURCES.get(c.source, c.source), grant_names(c))
                     for c in sorted(found, key=lambda c: c.client_id))) + f"\n{more}"
