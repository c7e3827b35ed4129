"""The audit trail's hook for Shared Signals: every batch of recorded events, once stored.

`on_events` is called by the audit trail's consumer (the stage's audit function, the local stack's
consumer) with each batch of events (authgate.audit.event's dicts) after they are kept. It must
not raise for a receiver's failure: the consumer counts an exception (AuditSignalsFailed) and
carries on, so a broken receiver never holds up the audit trail.
"""

from __future__ import annotations

from typing import Any


def on_events(events: list[dict[str, Any]]) -> None:
    """Nothing yet: the Shared Signals transmitter maps these events to CAEP and RISC signals."""
    return
