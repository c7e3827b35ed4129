"""What the audit trail's events tell receivers: `on_events` turns them into SETs on the streams that want them.

Called by the audit pipeline's consumer with each batch of audit events (dicts: `id`, `time`,
`tenant`, `actor`, `action`, `target`, `outcome`, `details`). For each event about a user
(ssf.event_mapping), on each stream of that user's tenant that delivers the event type and is
not disabled (a paused stream's SETs are held when sent), unless the receiver removed a subject
naming that user (SSF 1.0 8.1.3; every user is a subject by default, `default_subjects` ALL):
one SET, queued on the deliveries queue (deliveries.security_events signs and sends it). Its
claims: `iss` the stream's, `aud` the receiver, `txn` the audit event's id (SSF 1.0 4.1.9: every
SET of one cause shares it; user.disabled sends session-revoked and account-disabled), `sub_id`
the user as `iss_sub` (RFC 9493 3.2.3: the stream's issuer and the user's user_id, the `sub` of
their ID tokens), `events` one event.

Costs per batch: one Query per tenant with events, one BatchGetItem per 100 (stream, subject)
pairs, one SendMessageBatch per 10 SETs. Nothing is lost silently: a storage fault raises, and
so does a SET the queue did not take (SignalsNotQueued).

`from_trail` is the audit trail's hook (authgate.audit_trail.consumer, after the batch is kept):
when `on_events` fails, the batch's events that call for signals are parked on the deliveries
queue and the deliver function tries them again (deliveries.pending_signals), so neither a
receiver's stream nor a bad event ever holds up the trail. Only when they can be neither queued
nor parked does it raise, and the stream delivers the batch again: its events are kept already
(the trail skips what its head's position covers), so the retry sends their signals and keeps
nothing twice. A retried batch sends new jti values with the same `txn`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from authgate import clock
from authgate.deliveries import pending_signals, queue
from authgate.deliveries.security_events import queued
from authgate.event_streams import subjects
from authgate.event_streams.stream import DISABLED, Stream
from authgate.http.metrics import record_count
from authgate.logs import get_logger
from authgate.ssf.event_mapping import Signal, signals_of, user_of
from authgate.stores.streams import StreamStore
from authgate.tokens.security_event_token import new_jti


class SignalsNotQueued(Exception):
    """The deliveries queue took fewer SETs than were sent to it; the batch must be tried again."""


def from_trail(events: list[dict[str, Any]]) -> None:
    """The SETs of a kept batch of audit events, queued now or parked for the deliver function to try again."""
    try:
        on_events(events)
    except Exception as exc:
        waiting = [e for e in events if isinstance(e, dict) and signals_of(e)]
        record_count(pending_signals.FAILED, len(waiting) or 1)
        get_logger().warning("Shared Signals not queued; their events are parked for a retry", extra={
            "events": len(waiting), "detail": f"{type(exc).__name__}: {exc}"})
        parked = pending_signals.messages(waiting)
        if queue.send(parked) < len(parked):
            raise SignalsNotQueued("the events' signals could be neither queued nor parked") from exc


def on_events(events: list[dict[str, Any]], store: StreamStore | None = None) -> int:
    """Queue the SETs `events` call for; how many were queued."""
    streams_store = store or StreamStore()
    by_tenant: dict[str, list[tuple[dict[str, Any], Signal]]] = defaultdict(list)
    for event in events:
        if isinstance(event, dict) and isinstance(event.get("tenant"), str):
            by_tenant[event["tenant"]].extend((event, signal) for signal in signals_of(event))
    messages: list[dict[str, Any]] = []
    for tenant_id, signals in by_tenant.items():
        if signals:
            messages.extend(_messages(streams_store, tenant_id, signals))
    if not messages:
        return 0
    accepted = queue.send(messages)
    if accepted < len(messages):
        raise SignalsNotQueued(f"{len(messages) - accepted} of {len(messages)} SETs were not queued")
    return accepted


def _messages(store: StreamStore, tenant_id: str, signals: list[tuple[dict[str, Any], Signal]]) -> list[dict[str, Any]]:
    streams = [stream for stream in store.of_tenant(tenant_id) if stream.status != DISABLED]
    wanted: list[tuple[Stream, dict[str, Any], Signal, tuple[str, ...]]] = []
    for event, signal in signals:
        user = user_of(event)
        assert user is not None  # signals_of answers none for an event about no user
        for stream in streams:
            if stream.carries(signal.event_type):
                wanted.append((stream, event, signal, subjects.user_keys(stream.iss, *user)))
    removed = store.removed(tenant_id, [(stream.stream_id, key) for stream, _, _, keys in wanted for key in keys])
    now = clock.seconds()
    return [queued(stream, _claims(stream, event, signal, now)) for stream, event, signal, keys in wanted
            if not any((stream.stream_id, key) in removed for key in keys)]


def _claims(stream: Stream, event: dict[str, Any], signal: Signal, now: int) -> dict[str, Any]:
    user = user_of(event)
    assert user is not None
    claims: dict[str, Any] = {"iss": stream.iss, "jti": new_jti(clock.millis()), "iat": now, "aud": stream.client_id,
                              "sub_id": subjects.iss_sub(stream.iss, user[0]),
                              "events": {signal.event_type: signal.claims}}
    if isinstance(event.get("id"), str) and event["id"]:
        claims["txn"] = event["id"]
    return claims
