"""The approval channel: how a person learns that a client asks them to approve (OpenID Connect CIBA Core 1.0 poll
mode leaves it to the provider, 5; docs/ciba.md).

ONE function, `notify`: the tenant's webhook is queued on the deliveries queue and sent, signed,
by the deliver function (deliveries.approval_webhook), so the endpoint never waits for the
receiver: for a hint that names nobody the same message is queued without its payload, and never
sent. The person's email, when the stage sends mail, gets the link as well (inline); on the local
stack both land in the outbox. The payload carries the user, the client, the binding message,
what is asked and the expiry, and the single-use approval link — never the auth_req_id. Nothing
here is logged: never the link.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from authgate.deliveries.approval_webhook import queue_approval
from authgate.mail.sender import Mail, available, send

if TYPE_CHECKING:
    from authgate.approvals.backchannel_request import BackchannelRequest
    from authgate.tenants.model import Tenant


def notify(request: BackchannelRequest, *, link: str, client_name: str, asked: tuple[str, ...], issuer: str,
           tenant: Tenant | None, email: str) -> None:
    """Tell the person through every channel the tenant has (webhook, mail); failures are logged, never raised.
    For a request that names nobody (no user_id) only the webhook's message is queued, without a payload."""
    if tenant is not None and tenant.approval_webhook:
        queue_approval(request.tenant_id, tenant.approval_webhook,
                       _payload(request, link, client_name, asked, issuer) if request.user_id else None)
    if request.user_id and email and available():
        lines = [f"{client_name} asks you to approve:", *(f"- {line}" for line in asked)]
        if request.binding_message:
            lines.append(f"It shows this message: {request.binding_message}")
        send(Mail(email, f"Approve a request from {client_name}",
                  "\n".join(lines) + f"\n\nTo approve or deny, open\n\n{link}\n\nThe link works once, until the "
                  "request expires. If you expected nothing, deny it.\n"))


def _payload(request: BackchannelRequest, link: str, client_name: str, asked: tuple[str, ...],
             issuer: str) -> dict[str, Any]:
    return {
        "type": "approval_request", "id": secrets.token_urlsafe(12), "issuer": issuer,
        "tenant": request.tenant_id, "user_id": request.user_id, "username": request.username,
        "client_id": request.client_id, "client_name": client_name, "binding_message": request.binding_message,
        "asked": list(asked), "expires_at": request.expires_at, "approval_url": link,
    }
