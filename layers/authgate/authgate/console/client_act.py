"""GET and POST /console/client-act?client_id=X&action=A: rotate a client's secret or delete the client, confirmed
first, as `authgate clients rotate-secret` and `delete` do (administration.clients: the same operation and messages).

Both ask `clients.change` before anything is read or any field looked at, then in the client's tenant
(console.clients.judged). The form is taken once (console.clients.once): the new secret is on the answer page of the
rotation and nowhere else, and a reload rotates nothing. Each is the command's audit event (client.secret_rotated,
client.deleted) by the operator, naming their roles; a refusal is a failure with its reason.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import audit
from authgate.audit.actions import Action as AuditAction
from authgate.console.clients import client_url, judged, once
from authgate.console.pages import (
    STEP,
    Link,
    allow_somewhere,
    confirmation,
    done,
    query_value,
    recorded,
    secret_once,
    url,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.oauth.clients.recorded import facts


class Action(NamedTuple):
    label: str  # the button
    does: str  # what it does, for the confirmation ({id}: the client id)
    audited: AuditAction  # the audit trail's action (the command's)


WHAT: dict[str, Action] = {
    "rotate-secret": Action("Rotate the secret", "{id} gets a new secret, shown once on the next page; the old one "
                            "stops working now.", "client.secret_rotated"),
    "delete": Action("Delete", "{id} is removed: its refresh tokens stop working now, its access tokens within a "
                     "minute.", "client.deleted"),
}


def get_act(request: Request, signed: SignedIn) -> Response:
    allow_somewhere(signed, "clients.change")
    action = _action(query_value(request, "action", 32))
    client = judged(request, signed, "clients.change", query_value(request, "client_id"))
    what = WHAT[action]
    return confirmation(request, signed, title=f"{what.label}: {client.client_id}?",
                        does=what.does.format(id=client.client_id), target="client-act",
                        fields=(("client_id", client.client_id), ("action", action)), label=what.label,
                        cancel=Link(client_url(request, client.client_id), "Cancel"), current="clients")


def post_act(request: Request, signed: SignedIn) -> Response:
    from authgate.administration import clients as administration
    from authgate.administration.input import InvalidInput
    from authgate.clients.errors import ClientNotFound

    allow_somewhere(signed, "clients.change")
    fields = form_fields(request, STEP)
    action = _action(fields.get("action", ""))
    client = judged(request, signed, "clients.change", fields.get("client_id", ""))
    what, target = WHAT[action], audit.Party("client", client.client_id)
    once(fields)
    try:
        if action == "rotate-secret":
            secret = administration.rotate_secret(client.client_id)
        else:
            _, said = administration.delete(client.client_id)
    except (InvalidInput, administration.ClientChanged) as exc:
        recorded(signed, what.audited, client.tenant_id, target, action, outcome="failure",
                 reason="invalid_input" if isinstance(exc, InvalidInput) else "changed_meanwhile")
        raise ApiError("invalid_request", str(exc)) from None
    except ClientNotFound:
        raise ApiError("not_found", f"There is no client {client.client_id!r}.") from None
    recorded(signed, what.audited, client.tenant_id, target, action, **facts(client))
    if action == "rotate-secret":
        return done(request, signed, title=f"{what.label}: {client.client_id}",
                    said=f"client_id: {client.client_id}", current="clients",
                    back=Link(client_url(request, client.client_id), f"To {client.client_id}"),
                    more=secret_once("Client secret", secret, administration.SECRET_ROTATED))
    return done(request, signed, title=f"{what.label}: {client.client_id}", said=said, current="clients",
                back=Link(url(request, "clients", [("tenant", client.tenant_id)]),
                          f"All clients of {client.tenant_id}"))


def _action(action: str) -> str:
    if action not in WHAT:
        raise ApiError("invalid_request", f"There is no action {action[:32]!r}: the actions are {', '.join(WHAT)}.")
    return action
