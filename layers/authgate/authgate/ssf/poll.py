"""The poll endpoint, POST /ssf/poll (RFC 8936; SSF 1.0 6.1.2): a poll stream's receiver fetches and acknowledges SETs.

The request (RFC 8936 2.2) is a JSON object: `ack`, the jti values of SETs the receiver
processed; `setErrs`, those it could not, each with an `err` and a `description` (2.4.4: logged
and counted, SecurityEventRejected, never sent again); `maxEvents`, how many SETs to return (0:
acknowledge only, 2.4.2; at most MAX_EVENTS, the default); `returnImmediately` (default false: a
long poll of at most LONG_POLL_SECONDS when nothing waits). Acknowledgements are processed
first, then the oldest waiting SETs are answered (2.3): `sets`, jti to SET, and
`moreAvailable`. A SET not acknowledged is answered again by the next poll, until it expires
(deliveries.security_events.KEEP_SECONDS). A paused or disabled stream answers no SET (SSF 1.0
8.1.2.1). Authorized as the management API is (SSF 1.0 7.1.1); a push stream is 400.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from authgate import clock
from authgate.event_streams.stream import ENABLED, POLL
from authgate.http.body import json_object
from authgate.http.metrics import record_count
from authgate.http.response import NO_STORE, Response
from authgate.logs import get_logger
from authgate.ssf.receiver import authenticated, invalid, not_found
from authgate.stores.streams import StreamStore

if TYPE_CHECKING:
    from authgate.event_streams.stream import Stream
    from authgate.http.request import Request

MAX_EVENTS = 100
MAX_ACKS = 1000
MAX_JTI = 128
LONG_POLL_SECONDS = 5.0
LONG_POLL_STEP = 0.5


def post_poll(request: Request) -> Response:
    """RFC 8936 2.4-2.5: acknowledge, then answer the waiting SETs."""
    receiver = authenticated(request)
    body = json_object(request, untyped_json=True)
    stream = receiver.stream
    if stream is None:
        raise not_found()
    if stream.method != POLL:
        raise invalid("This stream delivers by push (RFC 8935): its SETs are never polled.", "")
    max_events = body.get("maxEvents", MAX_EVENTS)
    if isinstance(max_events, bool) or not isinstance(max_events, int) or not 0 <= max_events <= MAX_EVENTS:
        raise invalid(f"maxEvents is an integer from 0 to {MAX_EVENTS} (RFC 8936 2.2).", "/maxEvents")
    immediately = body.get("returnImmediately", False)
    if not isinstance(immediately, bool):
        raise invalid("returnImmediately is true or false (RFC 8936 2.2).", "/returnImmediately")
    done = _acknowledged(body) + _rejected(stream, body)
    store = StreamStore()
    if done:
        store.acknowledge(stream, done)
    sets: dict[str, str] = {}
    more = False
    if max_events and stream.status == ENABLED:
        deadline = time.monotonic() + (0 if immediately else LONG_POLL_SECONDS)
        while True:
            found, more = store.queued(stream, max_events, clock.seconds())
            if found or time.monotonic() >= deadline:
                break
            time.sleep(LONG_POLL_STEP)
        sets = dict(found)
    return Response.json(200, {"sets": sets, "moreAvailable": more}, headers=NO_STORE)


def _acknowledged(body: dict[str, Any]) -> list[str]:
    ack = body.get("ack", [])
    if not isinstance(ack, list) or len(ack) > MAX_ACKS or not all(
            isinstance(jti, str) and 0 < len(jti) <= MAX_JTI for jti in ack):
        raise invalid(f"ack is a list of at most {MAX_ACKS} jti values (RFC 8936 2.2).", "/ack")
    return list(ack)


def _rejected(stream: Stream, body: dict[str, Any]) -> list[str]:
    """The SETs the receiver could not process (RFC 8936 2.4.4), each logged and counted."""
    errors = body.get("setErrs", {})
    if not isinstance(errors, dict) or len(errors) > MAX_ACKS or not all(
            0 < len(jti) <= MAX_JTI and isinstance(error, dict) for jti, error in errors.items()):
        raise invalid("setErrs maps jti values to objects with err and description (RFC 8936 2.2).", "/setErrs")
    for jti, error in errors.items():
        record_count("SecurityEventRejected")
        get_logger().warning("security event rejected by its receiver", extra={
            "tenant": stream.tenant_id, "client_id": stream.client_id, "stream_id": stream.stream_id, "jti": jti,
            "err": str(error.get("err", ""))[:64], "description": str(error.get("description", ""))[:256]})
    return list(errors)
