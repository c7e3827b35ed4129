"""The approval webhook, sent through the deliveries queue (OpenID Connect CIBA Core 1.0 5: poll mode leaves how the
person is reached to the provider; docs/ciba.md).

The backchannel endpoint queues one message per request of a tenant that registered a webhook
(`queued`; oauth.backchannel.channel queues it with the request's mail), also for a hint that
names nobody: that message carries no payload and the deliver function drops it, so the
endpoint's answer costs the same whoever the hint names (one SendMessageBatch). The deliver function (`deliver`) signs the payload's exact bytes with a detached
JWS (RFC 7515 Appendix F, RFC 7797 unencoded payload) by the issuer's current key, in the
`Authgate-Signature` header, so the receiver verifies it against the published JWKS, and POSTs it
under authgate.outbound's rules (https, public addresses only, checked when sent; bounded in time
and size). A failure a retry may mend is tried again by SQS, up to queue.MAX_ATTEMPTS. The message
holds the single-use approval link (it is what the person must receive; the queue is encrypted at
rest and keeps a message a day at most), never the auth_req_id; logs never show the link. Each
outcome is one EMF metric (METRICS); on the local stack every attempt lands in the outbox too
(kind `webhook`), signature included.
"""

from __future__ import annotations

import json
from typing import Any

from authgate import base64url
from authgate.deliveries import queue
from authgate.http.metrics import record_count
from authgate.logs import get_logger
from authgate.outbound.post import DEFAULT_LIMITS, Failed, post
from authgate.settings import get_settings
from authgate.tokens.current_signer import current_signer
from authgate.tokens.jws import encode_json

KIND = "approval_webhook"
SIGNATURE_HEADER = "Authgate-Signature"
# The JWS's typ: what the signed content is (RFC 7515 4.1.9).
SIGNATURE_TYPE = "authgate-approval+json"
METRICS = {"delivered": "ApprovalWebhookDelivered", "retried": "ApprovalWebhookRetried",
           "failed": "ApprovalWebhookFailed"}


def queued(tenant_id: str, url: str, payload: dict[str, Any] | None) -> dict[str, Any]:
    """The queued message of one request's webhook; `payload` None for a hint that names nobody (queued alike, never
    sent)."""
    return {"kind": KIND, "tenant": tenant_id, "url": url, "payload": payload}


def is_message(message: dict[str, Any]) -> bool:
    """Whether a queued message is an approval webhook this version can send."""
    return (message.get("kind") == KIND and isinstance(message.get("tenant"), str)
            and isinstance(message.get("url"), str) and isinstance(message.get("payload"), (dict, type(None))))


def deliver(message: dict[str, Any], attempt: int) -> str:
    """Sign and POST one queued webhook: "delivered", "retried" (try again later), "failed" (given up) or "dropped"
    (it named nobody)."""
    payload = message["payload"]
    if payload is None:
        return "dropped"
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    signature = detached_signature(body)
    try:
        status = post(message["url"], body, "application/json", headers={SIGNATURE_HEADER: signature},
                      allow_loopback=get_settings().allow_loopback_outbound, limits=DEFAULT_LIMITS)
    except Failed as exc:
        outcome = "retried" if exc.retry and attempt < queue.MAX_ATTEMPTS else "failed"
        return _outcome(outcome, message, attempt, exc.internal, signature)
    return _outcome("delivered", message, attempt, f"HTTP {status}", signature)


def detached_signature(body: bytes) -> str:
    """A compact JWS of the body's exact bytes, unencoded (RFC 7797: b64 false) and left out (RFC 7515
    Appendix F): `header..signature`, as Open Banking's x-jws-signature is."""
    signer = current_signer()
    header: dict[str, Any] = {"alg": signer.alg, "kid": signer.kid, "typ": SIGNATURE_TYPE, "b64": False,
                              "crit": ["b64"]}
    head = encode_json(header)
    signature = signer.sign(head.encode("ascii") + b"." + body)
    return f"{head}..{base64url.encode(signature)}"


def _outcome(outcome: str, message: dict[str, Any], attempt: int, detail: str, signature: str) -> str:
    record_count(METRICS[outcome])
    log = get_logger().info if outcome == "delivered" else get_logger().warning
    log(f"approval webhook {outcome}", extra={"tenant": message["tenant"], "attempt": attempt, "detail": detail})
    outbox = get_settings().outbox
    if outbox:
        from authgate.mail import outbox as local_outbox

        local_outbox.append(outbox, "webhook", url=message["url"], body=message["payload"],
                            headers={SIGNATURE_HEADER: signature}, outcome=outcome, attempt=attempt, detail=detail)
    return outcome
