"""Who is asking: the receiver of a stream management or poll request (SSF 1.0 8: "MUST associate a Receiver with
one or more stream IDs and aud values").

A receiver is an OAuth client presenting an access token (RFC 6750 2.1; DPoP-bound tokens too,
RFC 9449 7.1) for the resource `<issuer>/ssf` with scope `ssf:manage` (SSF 1.0 7.1.1, the
authorization scheme `urn:ietf:rfc:6749`): the bearer guard's every check holds (signature,
issuer, audience, expiry, revocation, the client still registered), and its failures are
RFC 6750 3.1's (401 with a challenge, 403 insufficient_scope). The receiver's stream is read in
the guard's one BatchGetItem. A stream is its client's: another receiver's stream_id is
404, exactly as one that never existed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from authgate.errors import ApiError, FieldError
from authgate.errors.model import Location
from authgate.event_streams.stream import Stream
from authgate.issuer import base_url
from authgate.ssf.configuration import SCOPE, resource
from authgate.stores.streams import StreamStore
from authgate.tokens.guard import require_bearer_with

if TYPE_CHECKING:
    from authgate.http.request import Request


class Receiver(NamedTuple):
    """An authenticated receiver and its stream as read with its token (None: it has none)."""

    tenant_id: str
    client_id: str
    issuer: str
    stream: Stream | None


def authenticated(request: Request) -> Receiver:
    """The receiver whose token the request carries, or the guard's 401/403 (SSF 1.0 8.1: 401, 403)."""
    issuer = base_url(request)
    store = StreamStore()
    principal, pending = require_bearer_with(
        request, SCOPE, lambda principal, reads: store.prefetch(reads, principal.tenant, principal.client_id),
        audience=resource(issuer))
    return Receiver(principal.tenant, principal.client_id, issuer, store.found(pending))


def invalid(detail: str, pointer: str = "", location: Location = "body", name: str = "") -> ApiError:
    """400 invalid_stream_request naming the member at fault (SSF 1.0 8.1: 400)."""
    return ApiError("invalid_stream_request", detail,
                    field_errors=(FieldError(pointer, detail, location, name),))


def not_found(stream_id: str = "") -> ApiError:
    """404 stream_not_found: no stream of this receiver is the one named (or, unnamed, it has none)."""
    if not stream_id:
        return ApiError("stream_not_found", "This receiver has no stream; create one first.")
    return ApiError("stream_not_found", f"This receiver has no stream {stream_id[:80]!r}.")


def named_stream(receiver: Receiver, stream_id: str) -> Stream:
    """The receiver's stream if it is the one named, else 404 stream_not_found (SSF 1.0 8.1)."""
    if receiver.stream is None or receiver.stream.stream_id != stream_id:
        raise not_found(stream_id)
    return receiver.stream


def stream_id_in_query(request: Request, *, required: bool) -> str | None:
    """The `stream_id` query parameter (SSF 1.0 8.1.1.2, 8.1.1.5, 8.1.2.1): once, a non-empty string."""
    values = request.query.get("stream_id") or []
    if not values:
        if required:
            raise invalid("Name the stream: ?stream_id=...", "", "query", "stream_id")
        return None
    if len(values) > 1 or not values[0]:
        raise invalid("Give stream_id once, not empty.", "", "query", "stream_id")
    return values[0]


def stream_id_in_body(body: dict[str, object]) -> str:
    """The body's `stream_id` (SSF 1.0 8.1.1.3-4, 8.1.2.2, 8.1.3.2-3, 8.1.4.2: REQUIRED)."""
    value = body.get("stream_id")
    if not isinstance(value, str) or not value:
        raise invalid("The body names the stream: stream_id, a string.", "/stream_id")
    return value
