"""Security Event Tokens on their way to a receiver (OpenID Shared Signals Framework 1.0 6; RFC 8935, RFC 8936).

The transmitter (authgate.ssf) queues one message per (stream, event) on the deliveries queue
(`queued`): the stream's key and the SET's claims, never a signature or the receiver's
credentials. The deliver function (`deliver`) reads the stream as it is now, so a change made
after the event counts: a stream deleted (or deleted and created again) or disabled drops the
SET (SSF 1.0 8.1.2.1: a disabled stream holds nothing), an event type no longer requested is
dropped, a paused stream holds it (StreamsTable, at most HOLD_SECONDS) until it is enabled
again. Otherwise the SET is signed now (tokens.security_event_token) and:

- push (RFC 8935 2.1): POSTed to the receiver's endpoint_url as `application/secevent+jwt`, with
  the Authorization header the receiver set for its stream (SSF 1.0 6.1.1), under
  authgate.outbound's rules (https, public addresses only, checked when sent; time and size
  bounded; no redirect followed). A 2xx (RFC 8935 2.2: 202) is delivered; a network failure, a
  timeout, a 5xx or 429 is tried again by SQS up to queue.MAX_ATTEMPTS, then the message waits in
  the dead-letter queue; a 4xx (RFC 8935 2.3: the receiver refused this SET) is given up at once;
- poll (RFC 8936): kept in StreamsTable for the receiver's next poll, at most KEEP_SECONDS unless
  acknowledged.

Each outcome is one EMF metric (METRICS; SecurityEventFailed has its alarm) and one log line with
the tenant, the receiver, the stream, the jti and the event type (never the SET or the header);
a storage fault is tried again. On the local stack every attempt lands in the outbox (kind
`security_event`), SET included.
"""

from __future__ import annotations

from typing import Any

from authgate import clock
from authgate.deliveries import queue
from authgate.event_streams.event_types import VERIFICATION
from authgate.event_streams.stream import DISABLED, PAUSED, POLL, Stream
from authgate.http.metrics import record_count
from authgate.logs import get_logger
from authgate.outbound.post import DEFAULT_LIMITS, Failed, post
from authgate.settings import get_settings
from authgate.stores.exceptions import StorageUnavailable
from authgate.stores.streams import StreamStore
from authgate.tokens.security_event_token import sign_set

KIND = "security_event"
# RFC 8935 2.1: the media type of a pushed SET.
SET_MEDIA_TYPE = "application/secevent+jwt"
# How long a SET waits for a poll, or a paused push stream's SET to be sent (docs/shared-signals.md).
KEEP_SECONDS = 7 * 24 * 3600
HOLD_SECONDS = KEEP_SECONDS
METRICS = {"delivered": "SecurityEventDelivered", "retried": "SecurityEventRetried",
           "failed": "SecurityEventFailed"}


def queued(stream: Stream, claims: dict[str, Any]) -> dict[str, Any]:
    """The queued message of one SET for `stream` (its claims; signed when sent)."""
    return {"kind": KIND, "tenant": stream.tenant_id, "client_id": stream.client_id, "stream_id": stream.stream_id,
            "claims": claims}


def is_message(message: dict[str, Any]) -> bool:
    """Whether a queued message is a SET this version can send."""
    claims = message.get("claims")
    return (message.get("kind") == KIND and all(isinstance(message.get(k), str) for k in ("tenant", "client_id",
                                                                                          "stream_id"))
            and isinstance(claims, dict) and isinstance(claims.get("jti"), str)
            and isinstance(claims.get("events"), dict) and len(claims["events"]) == 1)


def deliver(message: dict[str, Any], attempt: int, store: StreamStore | None = None) -> str:
    """Send one SET: "delivered" (pushed, or waiting for a poll), "held" (paused stream), "dropped" (its stream is
    gone, disabled or no longer asks for it), "retried" (try again later) or "failed" (given up)."""
    streams = store or StreamStore()
    claims = message["claims"]
    (event_type,) = claims["events"]
    try:
        stream = streams.get(message["tenant"], message["client_id"])
        if stream is None or stream.stream_id != message["stream_id"]:
            return _outcome("dropped", message, attempt, "its stream was deleted")
        if stream.status == DISABLED or (event_type != VERIFICATION and not stream.carries(event_type)):
            return _outcome("dropped", message, attempt, f"the stream is {stream.status} or no longer asks for it")
        now = clock.seconds()
        if stream.status == PAUSED:
            streams.hold(stream, claims["jti"], message, now + HOLD_SECONDS)
            return _outcome("held", message, attempt, "the stream is paused")
        token = sign_set(claims)
        if stream.method == POLL:
            streams.queue_set(stream, claims["jti"], token, now + KEEP_SECONDS)
            return _outcome("delivered", message, attempt, "waiting for a poll", token)
    except StorageUnavailable as exc:
        return _outcome("retried" if attempt < queue.MAX_ATTEMPTS else "failed", message, attempt, str(exc))
    headers = {"Accept": "application/json"}
    if stream.authorization_header:
        headers["Authorization"] = stream.authorization_header
    try:
        status = post(stream.endpoint_url, token.encode("ascii"), SET_MEDIA_TYPE, headers=headers,
                      allow_loopback=get_settings().allow_loopback_outbound, limits=DEFAULT_LIMITS)
    except Failed as exc:
        outcome = "retried" if exc.retry and attempt < queue.MAX_ATTEMPTS else "failed"
        return _outcome(outcome, message, attempt, exc.internal, token, stream.endpoint_url)
    return _outcome("delivered", message, attempt, f"HTTP {status}", token, stream.endpoint_url)


def _outcome(outcome: str, message: dict[str, Any], attempt: int, detail: str, token: str = "",
             url: str = "") -> str:
    if outcome in METRICS:
        record_count(METRICS[outcome])
    log = get_logger().info if outcome in ("delivered", "held", "dropped") else get_logger().warning
    log(f"security event {outcome}", extra={"tenant": message["tenant"], "client_id": message["client_id"],
                                            "stream_id": message["stream_id"], "jti": message["claims"]["jti"],
                                            "event_type": next(iter(message["claims"]["events"])),
                                            "attempt": attempt, "detail": detail})
    outbox = get_settings().outbox
    if outbox and token:
        from authgate.mail import outbox as local_outbox

        local_outbox.append(outbox, KIND, client_id=message["client_id"], stream_id=message["stream_id"], url=url,
                            set=token, outcome=outcome, attempt=attempt, detail=detail)
    return outcome
