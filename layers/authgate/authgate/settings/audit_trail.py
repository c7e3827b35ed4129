"""Where the audit trail is kept and sent (authgate.audit_trail, docs/audit.md), and the variables naming it.

On a stage: the Object Lock bucket of chained objects, the stream the functions' audit lines reach
it through (admin commands write theirs there too), the HMAC key each object is sealed with, the
event bus every event is published on and the queue of events the bus refused. Locally (`authgate
serve`): a directory instead of the bucket, no bus. Empty: not configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

TRAIL_ENV = {
    "bucket": "AUTHGATE_AUDIT_BUCKET",
    "directory": "AUTHGATE_AUDIT_DIR",
    "stream": "AUTHGATE_AUDIT_STREAM",
    "mac_key": "AUTHGATE_AUDIT_MAC_KEY",
    "bus": "AUTHGATE_AUDIT_BUS",
    "unpublished_queue": "AUTHGATE_AUDIT_UNPUBLISHED_QUEUE",
}


class AuditTrail(NamedTuple):
    bucket: str = ""
    directory: str = ""
    stream: str = ""
    mac_key: str = ""
    bus: str = ""
    unpublished_queue: str = ""


def audit_trail(env: Mapping[str, str]) -> AuditTrail:
    return AuditTrail(**{name: env.get(variable, "") for name, variable in TRAIL_ENV.items()})
