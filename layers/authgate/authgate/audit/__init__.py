"""The audit trail's record side: an event for every security-relevant act (docs/audit.md).

    from authgate import audit
    audit.record("user.disabled", tenant, actor=audit.operator(name, arn), target=audit.user(user_id, username))

`record` builds the event (event.py: id, time, tenant, actor, action, target, outcome, reason,
origin, details), checks its action against the catalogue (catalogue.json; `Action` is its type)
and writes one marked JSON line (record.py): no AWS call, nothing a request waits for. Where the
lines go from there is authgate.audit_trail's (the stage's audit function, the local stack's
consumer): chained objects (chain.py), the event bus, the Shared Signals hook.

Below the HTTP layer and importing nothing of it: the App binds each request's origin (origin.py)
and the domain code records.
"""

from authgate.audit.actions import Action
from authgate.audit.event import SYSTEM, Outcome, Party, client, operator, user
from authgate.audit.origin import bind
from authgate.audit.record import event_of, record

__all__ = ["SYSTEM", "Action", "Outcome", "Party", "bind", "client", "event_of", "operator", "record", "user"]
