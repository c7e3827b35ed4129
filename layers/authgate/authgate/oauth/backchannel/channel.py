"""The approval channel: how a person learns that a client asks them to approve (OpenID Connect CIBA Core 1.0 poll
mode leaves it to the provider, 5; docs/ciba.md).

ONE function, `notify`: the tenant's webhook and, where the stage sends mail, the mail to the
person are queued together on the deliveries queue (one SendMessageBatch) and sent by the deliver
function (deliveries.approval_webhook signs and POSTs the webhook, deliveries.queued_mail hands
the mail to SES), so the endpoint never waits for a receiver or for SES. For a hint that names
nobody, or a person without an email address, the same messages are queued without their
payload or mail, and never sent: the answer's work is the same whoever is asked. On the local
stack both land in the outbox. The payload carries the user, the client, the binding message,
what is asked and the expiry, and the single-use approval link — never the auth_req_id. Nothing
here is logged: never the link.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from authgate.deliveries import approval_webhook, queue, queued_mail
from authgate.mail.sender import Mail, available

if TYPE_CHECKING:
    from authgate.approvals.backchannel_request import BackchannelRequest
    from authgate.tenants.model import Tenant


def notify(request: BackchannelRequest, *, link: str, client_name: str, asked: tuple[str, ...], issuer: str,
           tenant: Tenant | None, email: str) -> None:
    """Queue the person's notice on every channel the tenant and the stage have (webhook, mail); failures are logged,
    never raised. For a request that names nobody (no user_id) the same messages are queued, empty."""
    messages = []
    if tenant is not None and tenant.approval_webhook:
        messages.append(approval_webhook.queued(
            request.tenant_id, tenant.approval_webhook,
            _payload(request, link, client_name, asked, issuer) if request.user_id else None))
    if available():
        messages.append(queued_mail.queued(_mail(request, link, client_name, asked, email)
                                           if request.user_id and email else None))
    queue.send(messages)


def _mail(request: BackchannelRequest, link: str, client_name: str, asked: tuple[str, ...], email: str) -> Mail:
    lines = [f"{client_name} asks you to approve:", *(f"- {line}" for line in asked)]
    if request.binding_message:
        lines.append(f"It shows this message: {request.binding_message}")
    return Mail(email, f"Approve a request from {client_name}",
                "\n".join(lines) + f"\n\nTo approve or deny, open\n\n{link}\n\nThe link works once, until the "
                "request expires. If you expected nothing, deny it.\n")


def _payload(request: BackchannelRequest, link: str, client_name: str, asked: tuple[str, ...],
             issuer: str) -> dict[str, Any]:
    return {
        "type": "approval_request", "id": secrets.token_urlsafe(12), "issuer": issuer,
        "tenant": request.tenant_id, "user_id": request.user_id, "username": request.username,
        "client_id": request.client_id, "client_name": client_name, "binding_message": request.binding_message,
        "asked": list(asked), "expires_at": request.expires_at, "approval_url": link,
    }
