"""The verification endpoint, /ssf/verify (SSF 1.0 8.1.4.2): ask for a verification event on a stream.

204 once the request is recorded; the event (8.1.4.1: `sub_id` the stream's own opaque id, the
receiver's `state` echoed) goes through the deliveries queue like every SET, pushed or waiting
for a poll within seconds (the spec lets it be asynchronous). At most one request per
MIN_VERIFICATION_INTERVAL seconds per stream (8.1.1 min_verification_interval): sooner is 429
with Retry-After.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate import clock
from authgate.deliveries import queue
from authgate.deliveries.security_events import queued
from authgate.errors import ApiError
from authgate.event_streams import subjects
from authgate.event_streams.event_types import VERIFICATION
from authgate.event_streams.stream import MIN_VERIFICATION_INTERVAL
from authgate.http.body import json_object
from authgate.http.response import NO_STORE, Response
from authgate.ssf.receiver import authenticated, invalid, named_stream, stream_id_in_body
from authgate.stores.streams import StreamStore
from authgate.tokens.security_event_token import new_jti

if TYPE_CHECKING:
    from authgate.http.request import Request

MAX_STATE = 1024


def post_verify(request: Request) -> Response:
    """SSF 1.0 8.1.4.2: 204, the verification event queued."""
    receiver = authenticated(request)
    body = json_object(request, untyped_json=True)
    stream = named_stream(receiver, stream_id_in_body(body))
    state = body.get("state")
    if state is not None and (not isinstance(state, str) or len(state) > MAX_STATE):
        raise invalid(f"state is a string of at most {MAX_STATE} characters.", "/state")
    StreamStore().verified(stream, clock.seconds(), MIN_VERIFICATION_INTERVAL)
    event: dict[str, Any] = {} if state is None else {"state": state}
    claims = {"iss": stream.iss, "jti": new_jti(clock.millis()), "iat": clock.seconds(), "aud": stream.client_id,
              "sub_id": subjects.opaque(stream.stream_id), "events": {VERIFICATION: event}}
    if not queue.send([queued(stream, claims)]):
        raise ApiError("service_unavailable", "The verification event could not be queued; ask again.",
                       headers={"Retry-After": "1"})
    return Response(204, headers=dict(NO_STORE))
