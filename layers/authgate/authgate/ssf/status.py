"""The status endpoint, /ssf/status (SSF 1.0 8.1.2): read and change whether a stream transmits.

`enabled` transmits; `paused` holds what it would have sent (push: StreamsTable keeps each SET at
most deliveries.security_events.HOLD_SECONDS; poll: a poll answers none) and sends it once enabled
again, oldest first; `disabled` sends and holds nothing, and what was held is dropped (8.1.2.1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.deliveries import queue
from authgate.event_streams.stream import DISABLED, ENABLED, STATUSES, Stream
from authgate.http.body import json_object
from authgate.http.response import NO_STORE, Response
from authgate.ssf.receiver import (
    authenticated,
    invalid,
    named_stream,
    stream_id_in_body,
    stream_id_in_query,
)
from authgate.stores.streams import StreamStore

if TYPE_CHECKING:
    from authgate.http.request import Request

MAX_REASON = 256


def get_status(request: Request) -> Response:
    """SSF 1.0 8.1.2.1: stream_id, status and reason."""
    receiver = authenticated(request)
    stream = named_stream(receiver, stream_id_in_query(request, required=True) or "")
    return Response.json(200, stream.status_view(), headers=NO_STORE)


def post_status(request: Request) -> Response:
    """SSF 1.0 8.1.2.2: 200 with the stream's new status."""
    receiver = authenticated(request)
    body = json_object(request, untyped_json=True)
    stream = named_stream(receiver, stream_id_in_body(body))
    status, reason = body.get("status"), body.get("reason", "")
    if status not in STATUSES:
        raise invalid(f"status is one of {', '.join(STATUSES)} (SSF 1.0 8.1.2.1).", "/status")
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise invalid(f"reason is a string of at most {MAX_REASON} characters.", "/reason")
    changed = stream._replace(status=status, reason=reason)
    store = StreamStore()
    store.save(changed)
    if status == ENABLED and stream.status != ENABLED:
        _release(store, changed)
    elif status == DISABLED:
        store.drop_held(changed)
    return Response.json(200, changed.status_view(), headers=NO_STORE)


def _release(store: StreamStore, stream: Stream) -> None:
    """Queue what the paused stream held, oldest first; forget it once every message was queued (kept otherwise,
    for the next time the stream is enabled)."""
    held = store.held(stream, clock.seconds())
    if queue.send([message for _, message in held]) == len(held):
        store.forget_held(stream, [item for item, _ in held])
