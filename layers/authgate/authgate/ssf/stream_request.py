"""What a receiver may set on its stream, checked (SSF 1.0 8.1.1: the Receiver-Supplied properties).

`events_requested` (a list of event type URIs: kept as sent, those this transmitter does not
know are ignored, 8.1.1), `delivery` (6.1: push with the receiver's https `endpoint_url` and
optional `authorization_header`, or poll, whose endpoint this transmitter supplies; no delivery
is poll, 8.1.1.1) and `description` (cut at MAX_DESCRIPTION, 8.1.1 lets the transmitter
truncate). The Transmitter-Supplied ones a PATCH or PUT may repeat must equal the stream's
(8.1.1.3-4), `events_delivered` as it was before the change. Each refusal is 400
invalid_stream_request with the member's pointer.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from authgate.event_streams.event_types import SUPPORTED
from authgate.event_streams.stream import (
    DELIVERY_METHODS,
    MIN_VERIFICATION_INTERVAL,
    POLL,
    PUSH,
    Stream,
)
from authgate.outbound import addresses
from authgate.outbound.post import Failed, target
from authgate.settings import get_settings
from authgate.ssf.configuration import poll_endpoint
from authgate.ssf.receiver import invalid

MAX_EVENTS_REQUESTED = 50
MAX_URI = 2048
MAX_AUTHORIZATION_HEADER = 4096
MAX_DESCRIPTION = 500


def events_requested(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_EVENTS_REQUESTED or not all(
            isinstance(uri, str) and 0 < len(uri) <= MAX_URI for uri in value):
        raise invalid(f"events_requested is a list of at most {MAX_EVENTS_REQUESTED} event type URIs.",
                      "/events_requested")
    return tuple(dict.fromkeys(value))


def description(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise invalid("description is a string.", "/description")
    return value[:MAX_DESCRIPTION]


def delivery(value: object, issuer: str) -> tuple[str, str, str]:
    """(method, endpoint_url, authorization_header) of a delivery object; poll when absent (SSF 1.0 8.1.1.1)."""
    if value is None:
        return POLL, poll_endpoint(issuer), ""
    if not isinstance(value, dict):
        raise invalid("delivery is an object with a method (SSF 1.0 6.1).", "/delivery")
    method = value.get("method")
    if method not in DELIVERY_METHODS:
        raise invalid(f"The delivery method must be {PUSH} (push) or {POLL} (poll).", "/delivery/method")
    url = value.get("endpoint_url")
    header = value.get("authorization_header")
    if method == POLL:
        ours = poll_endpoint(issuer)
        if url not in (None, ours):
            raise invalid(f"A poll stream's endpoint_url is the transmitter's: {ours} (SSF 1.0 6.1.2).",
                          "/delivery/endpoint_url")
        if header is not None:
            raise invalid("authorization_header is for push delivery only (SSF 1.0 6.1.1).",
                          "/delivery/authorization_header")
        return POLL, ours, ""
    if not isinstance(url, str) or not url:
        raise invalid("Push delivery needs the receiver's endpoint_url (SSF 1.0 6.1.1).", "/delivery/endpoint_url")
    _check_push_url(url)
    if header is not None and (not isinstance(header, str) or not header or len(header) > MAX_AUTHORIZATION_HEADER
                               or any(not " " <= c <= "~" for c in header)):
        raise invalid(f"authorization_header is the value of an HTTP header: printable ASCII, at most "
                      f"{MAX_AUTHORIZATION_HEADER} characters.", "/delivery/authorization_header")
    return PUSH, url, header or ""


def _check_push_url(url: str) -> None:
    """An https URL authgate.outbound may reach (http only to loopback on the local stack); a literal address must
    be one it connects to (a name is checked when each SET is sent)."""
    loopback = get_settings().allow_loopback_outbound
    try:
        if len(url) > MAX_URI:
            raise Failed("too long", retry=False)
        host = target(url, allow_loopback=loopback).host
    except Failed as exc:
        raise invalid(f"endpoint_url must be an https URL without user information or a fragment ({exc.internal}).",
                      "/delivery/endpoint_url") from None
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return
    why = addresses.refusal(host.strip("[]"), allow_loopback=loopback)
    if why:
        raise invalid(f"endpoint_url points at an address this transmitter never connects to ({why}).",
                      "/delivery/endpoint_url")


def configured(stream: Stream, body: dict[str, Any], *, replace: bool) -> Stream:
    """`stream` with the receiver-supplied properties of a PATCH (`replace` False: those present) or a PUT (all:
    one missing is removed, SSF 1.0 8.1.1.4), after the transmitter-supplied ones present were checked."""
    _check_transmitter_supplied(stream, body)
    changes: dict[str, Any] = {}
    if replace or "events_requested" in body:
        changes["events_requested"] = events_requested(body.get("events_requested"))
    if replace or "delivery" in body:
        changes["method"], changes["endpoint_url"], changes["authorization_header"] = delivery(
            body.get("delivery"), stream.iss)
    if replace or "description" in body:
        changes["description"] = description(body.get("description"))
    return stream._replace(**changes)


def _check_transmitter_supplied(stream: Stream, body: dict[str, Any]) -> None:
    expected: dict[str, Any] = {"iss": stream.iss, "aud": stream.client_id, "events_supported": list(SUPPORTED),
                                "events_delivered": list(stream.events_delivered),
                                "min_verification_interval": MIN_VERIFICATION_INTERVAL}
    for name, value in expected.items():
        if name in body and body[name] != value and not (name == "aud" and body[name] == [value]):
            raise invalid(f"{name} is the transmitter's and does not match this stream's (SSF 1.0 8.1.1.3).",
                          f"/{name}")
