"""The approval channel: how a person learns that a client asks them to approve (OpenID Connect CIBA Core 1.0 poll
mode leaves it to the provider, 5; docs/ciba.md).

ONE function, `notify`: the tenant's webhook gets a JSON POST under authgate.outbound's rules (https,
public addresses only, checked again now; bounded in time and size), signed with a detached JWS
(RFC 7515 Appendix F, RFC 7797 unencoded payload) by the issuer's current signing key in the `Authgate-Signature` header, so
the receiver verifies it against the published JWKS. The person's email, when the stage sends mail,
gets the link as well; on the local stack both land in the outbox. The payload carries the user,
the client, the binding message, what is asked and the expiry, and the single-use approval link —
never the auth_req_id. Delivery is inline with a short total deadline for now: asynchronous
delivery with retries will move it onto the deployment's queue, behind this same function.
Nothing here is logged but outcomes: never the link.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from authgate import base64url
from authgate.logs import get_logger
from authgate.mail.sender import Mail, available, send
from authgate.outbound.connection import Limits
from authgate.settings import get_settings
from authgate.tokens.current_signer import current_signer
from authgate.tokens.jws import encode_json

if TYPE_CHECKING:
    from authgate.approvals.backchannel_request import BackchannelRequest
    from authgate.tenants.model import Tenant

SIGNATURE_HEADER = "Authgate-Signature"
# The JWS's typ: what the signed content is (RFC 7515 4.1.9).
SIGNATURE_TYPE = "authgate-approval+json"
# Inline delivery: the backchannel answer waits at most this long for the webhook.
LIMITS = Limits(connect=1.0, read=2.0, total=3.0, max_bytes=4 * 1024)


def notify(request: BackchannelRequest, *, link: str, client_name: str, asked: tuple[str, ...], issuer: str,
           tenant: Tenant | None, email: str) -> None:
    """Tell the person through every channel the tenant has (webhook, mail); failures are logged, never raised."""
    payload = {
        "type": "approval_request", "id": secrets.token_urlsafe(12), "issuer": issuer,
        "tenant": request.tenant_id, "user_id": request.user_id, "username": request.username,
        "client_id": request.client_id, "client_name": client_name, "binding_message": request.binding_message,
        "asked": list(asked), "expires_at": request.expires_at, "approval_url": link,
    }
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    settings = get_settings()
    if tenant is not None and tenant.approval_webhook:
        signature = detached_signature(body, request.tenant_id)
        _deliver(tenant.approval_webhook, body, signature)
        if settings.outbox:
            from authgate.mail import outbox

            outbox.append(settings.outbox, "webhook", url=tenant.approval_webhook, body=payload,
                          headers={SIGNATURE_HEADER: signature})
    if email and available():
        lines = [f"{client_name} asks you to approve:", *(f"- {line}" for line in asked)]
        if request.binding_message:
            lines.append(f"It shows this message: {request.binding_message}")
        send(Mail(email, f"Approve a request from {client_name}",
                  "\n".join(lines) + f"\n\nTo approve or deny, open\n\n{link}\n\nThe link works once, until the "
                  "request expires. If you expected nothing, deny it.\n"))


def detached_signature(body: bytes, tenant_id: str) -> str:
    """A compact JWS of the body's exact bytes, unencoded (RFC 7797: b64 false) and left out (RFC 7515
    Appendix F): `header..signature`, as Open Banking's x-jws-signature is."""
    signer = current_signer(tenant_id)
    header: dict[str, Any] = {"alg": signer.alg, "kid": signer.kid, "typ": SIGNATURE_TYPE, "b64": False,
                              "crit": ["b64"]}
    head = encode_json(header)
    signature = signer.sign(head.encode("ascii") + b"." + body)
    return f"{head}..{base64url.encode(signature)}"


def _deliver(url: str, body: bytes, signature: str) -> None:
    from authgate.outbound.post import Failed, post

    try:
        status = post(url, body, "application/json", headers={SIGNATURE_HEADER: signature},
                      allow_loopback=get_settings().allow_loopback_client_metadata, limits=LIMITS)
    except Failed as exc:
        get_logger().warning("approval webhook not delivered", extra={"reason": exc.internal, "retry": exc.retry})
        return
    get_logger().info("approval webhook delivered", extra={"status": status})
