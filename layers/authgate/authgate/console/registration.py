"""GET /console/client?client_id=X: a client's page: its whole registration as `authgate clients show` prints it
(administration.clients.shown: every field of its public view, its keys by kid, its resource grants; never its
secret's hash), where it came from and what that means, and the actions the operator may take on it.

Allowed by `clients.view` in the client's tenant (console.clients.judged); the actions by `clients.change` there.
"""

from __future__ import annotations

import html
from typing import Any

from authgate.clients.model import Client
from authgate.console.clients import SOURCES, client_url, judged
from authgate.console.pages import Link, definitions, links, page, query_value, section, url, when
from authgate.console.session import SignedIn
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles

_TIMES = ("created_at", "refresh_at", "expires_at")


def get_client(request: Request, signed: SignedIn) -> Response:
    from authgate.administration.clients import shown

    client = judged(request, signed, "clients.view", query_value(request, "client_id"))
    body = "\n".join((_source(client), _actions(request, signed, client),
                      definitions("Registration", ((name, _value(name, value)) for name, value in shown(client).items())),
                      f'<p>{_back(request, client)}</p>'))
    return page(request, signed, f"Client {client.client_id}", body, current="clients")


def _value(name: str, value: Any) -> str:
    """A field as people read it: yes or no, a time, words joined by spaces, "-" for nothing."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name in _TIMES and isinstance(value, int):
        return when(value)
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or "-"
    return str(value) if value not in (None, "", {}) else "-"


def _source(client: Client) -> str:
    """Where the client came from, and what that means for it."""
    if client.source == "registration":
        said = (f"It registered itself through dynamic registration (RFC 7591) on {when(client.created_at)}"
                + (f", in the pool {client.registration_pool}" if client.registration_pool else "")
                + (f"; unless someone signs in to it, its registration ends on {when(client.expires_at)}"
                   if client.expires_at else "")
                + ". It holds a registration access token to read, change or delete its own registration; deleting "
                  "it here ends that token too.")
    elif client.source == "metadata_document":
        said = (f"Its registration is the Client ID Metadata Document at {client.client_id}, fetched on "
                f"{when(client.created_at)} and fetched again after {when(client.refresh_at)}. Deleting it drops the "
                "cached document: the next request naming it fetches it again.")
    else:
        said = "An administrator registered it (`authgate clients create`, or this console)."
    return section(f"Source: {SOURCES.get(client.source, client.source)}", f"<p>{html.escape(said)}</p>")


def _actions(request: Request, signed: SignedIn, client: Client) -> str:
    if not roles.may(signed.operator.roles, "clients.change", client.tenant_id):
        return ""
    offered = [Link(client_url(request, client.client_id, "client-edit"), "Change")]
    if client.client_type == "confidential":
        offered.append(Link(client_url(request, client.client_id, "client-act", ("action", "rotate-secret")),
                            "Rotate the secret"))
    offered.append(Link(client_url(request, client.client_id, "client-act", ("action", "delete")), "Delete"))
    return section("Actions", links(offered))


def _back(request: Request, client: Client) -> str:
    href = url(request, "clients", [("tenant", client.tenant_id)])
    return f'<a href="{html.escape(href)}">All clients of {html.escape(client.tenant_id)}</a>'
