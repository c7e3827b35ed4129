"""A receiver's event stream (OpenID Shared Signals Framework 1.0 8.1.1): its configuration and status.

One stream per receiver (SSF 1.0 8.1.1.1 lets a transmitter refuse a second with 409): the
receiver is an OAuth client of a tenant, authenticated by an access token with scope `ssf:manage`;
the stream's `aud` is its client_id, and it carries the events of that tenant's users only.
Receiver-supplied: `events_requested` (None when the receiver sent none), the delivery method and,
for push, the receiver's `endpoint_url` and `authorization_header` (SSF 1.0 6.1.1), `description`.
Transmitter-supplied: `stream_id`, `iss` (the issuer the receiver read the configuration from,
SSF 1.0 4.1.6), `events_supported`, `events_delivered` (what was requested and is supported, in
this server's order), `min_verification_interval`, the endpoint of a poll stream (SSF 1.0
6.1.2), and the status (8.1.2: enabled, paused or disabled) with its reason.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from authgate import records
from authgate.event_streams.event_types import SUPPORTED
from authgate.records import Field

# SSF 1.0 6.1: the delivery methods, by the URI of their RFC.
PUSH = "urn:ietf:rfc:8935"
POLL = "urn:ietf:rfc:8936"
DELIVERY_METHODS = (PUSH, POLL)
# SSF 1.0 8.1.2.1: a stream's statuses.
ENABLED, PAUSED, DISABLED = "enabled", "paused", "disabled"
STATUSES = (ENABLED, PAUSED, DISABLED)
# Seconds between two verification requests of one stream (SSF 1.0 8.1.1, 8.1.4.2: 429 when sooner).
MIN_VERIFICATION_INTERVAL = 10


class Stream(NamedTuple):
    """A receiver's stream (SSF 1.0 8.1.1)."""

    tenant_id: str
    client_id: str
    stream_id: str
    iss: str
    method: str
    # Push: the receiver's URL and the Authorization header it asked for (SSF 1.0 6.1.1); poll: this server's URL.
    endpoint_url: str
    authorization_header: str = ""
    events_requested: tuple[str, ...] | None = None
    description: str = ""
    status: str = ENABLED
    reason: str = ""
    created_at: int = 0
    # When the receiver last asked for a verification event (SSF 1.0 8.1.4.2).
    verified_at: int = 0

    @property
    def events_delivered(self) -> tuple[str, ...]:
        """What the transmitter sends on this stream: the supported events the receiver requested (SSF 1.0 8.1.1)."""
        requested = self.events_requested or ()
        return tuple(uri for uri in SUPPORTED if uri in requested)

    def carries(self, event_type: str) -> bool:
        return event_type in self.events_delivered

    def configuration(self) -> dict[str, Any]:
        """The stream's configuration as the management API answers it (SSF 1.0 8.1.1)."""
        delivery = {"method": self.method, "endpoint_url": self.endpoint_url}
        if self.authorization_header:
            delivery["authorization_header"] = self.authorization_header
        config: dict[str, Any] = {"stream_id": self.stream_id, "iss": self.iss, "aud": self.client_id,
                                  "delivery": delivery, "events_supported": list(SUPPORTED)}
        if self.events_requested is not None:
            config["events_requested"] = list(self.events_requested)
        config["events_delivered"] = list(self.events_delivered)
        config["min_verification_interval"] = MIN_VERIFICATION_INTERVAL
        if self.description:
            config["description"] = self.description
        return config

    def status_view(self) -> dict[str, str]:
        """The stream's status (SSF 1.0 8.1.2.1): stream_id, status, and the reason when one was given."""
        view = {"stream_id": self.stream_id, "status": self.status}
        if self.reason:
            view["reason"] = self.reason
        return view


# A stream's stored attributes (stores.streams adds its keys), in `Stream`'s order.
FIELDS = (
    Field("tenant_id", "S"),
    Field("client_id", "S"),
    Field("stream_id", "S"),
    Field("iss", "S"),
    Field("method", "S"),
    Field("endpoint_url", "S"),
    Field("authorization_header", "S", "", omit_empty=True, public=False),
    Field("events_requested", "JSON", None, omit_none=True),
    Field("description", "S", "", omit_empty=True),
    Field("status", "S", ENABLED),
    Field("reason", "S", "", omit_empty=True),
    Field("created_at", "N", 0),
    Field("verified_at", "N", 0, omit_empty=True),
)


def to_item(stream: Stream) -> records.Item:
    return records.to_item(FIELDS, stream._asdict())


def from_item(item: records.Item) -> Stream:
    values = records.from_item(FIELDS, item)
    if values["events_requested"] is not None:
        values["events_requested"] = tuple(values["events_requested"])
    return Stream(**values)
