"""The add and remove subject endpoints, /ssf/subjects/add and /ssf/subjects/remove (SSF 1.0 8.1.3.2-3).

Streams start with every user of the receiver's tenant as a subject (`default_subjects` ALL, SSF
1.0 7.1); removing a subject stops the events about it, adding it again resumes them. Whether
the subject names anyone here is never checked or told (SSF 1.0 9.1, subject probing): add
answers 200 and remove 204 for any well-formed subject identifier (event_streams.subjects).
`verified` (8.1.3.2) must be a boolean when sent; it changes nothing, since the tenant's users
are all the stream's subjects anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.event_streams import subjects
from authgate.http.body import json_object
from authgate.http.response import NO_STORE, Response
from authgate.ssf.receiver import authenticated, invalid, named_stream, stream_id_in_body
from authgate.stores.streams import ADDED, REMOVED, StreamStore

if TYPE_CHECKING:
    from authgate.http.request import Request


def add_subject(request: Request) -> Response:
    """SSF 1.0 8.1.3.2: an empty 200."""
    _mark(request, ADDED)
    return Response(200, headers=dict(NO_STORE))


def remove_subject(request: Request) -> Response:
    """SSF 1.0 8.1.3.3: 204."""
    _mark(request, REMOVED)
    return Response(204, headers=dict(NO_STORE))


def _mark(request: Request, state: str) -> None:
    receiver = authenticated(request)
    body = json_object(request, untyped_json=True)
    stream = named_stream(receiver, stream_id_in_body(body))
    try:
        subject = subjects.checked(body.get("subject"))
    except subjects.InvalidSubject as exc:
        raise invalid(exc.detail, exc.pointer) from None
    if state == ADDED and not isinstance(body.get("verified", True), bool):
        raise invalid("verified is true or false (SSF 1.0 8.1.3.2).", "/verified")
    StreamStore().mark_subject(stream, subjects.key(subject), subject, state, clock.seconds())
