"""The configuration endpoint, /ssf/streams (SSF 1.0 8.1.1): create, read, update, replace and delete a stream.

Each handler runs the same steps in order: authenticate the receiver (its stream read with the
token, ssf.receiver), read the request (a JSON object; SSF's examples send no Content-Type, so
none is read as JSON), find the stream it names (404 for none, or another receiver's), check
what the receiver set (ssf.stream_request), write under the condition that the stream is still
the one read, answer with the whole configuration, never cached (8.1.1.2's examples:
`Cache-Control: no-store`).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from authgate import clock
from authgate.event_streams.stream import Stream
from authgate.http.body import json_object
from authgate.http.response import NO_STORE, Response
from authgate.ssf import stream_request
from authgate.ssf.receiver import authenticated, named_stream, stream_id_in_body, stream_id_in_query
from authgate.stores.streams import StreamStore

if TYPE_CHECKING:
    from authgate.http.request import Request


def create_stream(request: Request) -> Response:
    """SSF 1.0 8.1.1.1: 201 with the new stream's configuration; 409 stream_exists when the receiver has one."""
    receiver = authenticated(request)
    body = json_object(request, untyped_json=True)
    method, url, header = stream_request.delivery(body.get("delivery"), receiver.issuer)
    stream = Stream(tenant_id=receiver.tenant_id, client_id=receiver.client_id, stream_id=secrets.token_hex(16),
                    iss=receiver.issuer, method=method, endpoint_url=url, authorization_header=header,
                    events_requested=stream_request.events_requested(body.get("events_requested")),
                    description=stream_request.description(body.get("description")), created_at=clock.seconds())
    StreamStore().create(stream)
    return Response.json(201, stream.configuration(), headers=NO_STORE)


def get_streams(request: Request) -> Response:
    """SSF 1.0 8.1.1.2: the named stream, or the list of the receiver's streams (none: [])."""
    receiver = authenticated(request)
    stream_id = stream_id_in_query(request, required=False)
    if stream_id is None:
        return Response.json(200, [receiver.stream.configuration()] if receiver.stream else [], headers=NO_STORE)
    return Response.json(200, named_stream(receiver, stream_id).configuration(), headers=NO_STORE)


def update_stream(request: Request) -> Response:
    """SSF 1.0 8.1.1.3 (PATCH): the properties present change, the others stay."""
    return _changed(request, replace=False)


def replace_stream(request: Request) -> Response:
    """SSF 1.0 8.1.1.4 (PUT): every receiver-supplied property is the body's; one missing is removed."""
    return _changed(request, replace=True)


def _changed(request: Request, *, replace: bool) -> Response:
    receiver = authenticated(request)
    body = json_object(request, untyped_json=True)
    stream = stream_request.configured(named_stream(receiver, stream_id_in_body(body)), body, replace=replace)
    StreamStore().save(stream)
    return Response.json(200, stream.configuration(), headers=NO_STORE)


def delete_stream(request: Request) -> Response:
    """SSF 1.0 8.1.1.5: 204; the stream's subjects and waiting SETs go with it."""
    receiver = authenticated(request)
    stream = named_stream(receiver, stream_id_in_query(request, required=True) or "")
    StreamStore().delete(stream)
    return Response(204, headers=dict(NO_STORE))
