"""SessionsTable: the console's sessions of operators (operators.console_session), under the key prefix `console#`.

Created once per sign-in (one conditional PutItem), read with the operator's user item in the request's one
BatchGetItem (console.session), deleted at sign-out; DynamoDB's TTL removes the rest at their `expires_at`.
"""

from __future__ import annotations

import secrets

from authgate import clock, records
from authgate.operators.console_session import FIELDS, ConsoleSession, session_key
from authgate.records import s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending

# A cookie's secret is 43 url-safe characters; anything else is never looked up.
MAX_SECRET = 64


class ConsoleSessionStore(TableStore):
    """SessionsTable items `console#<hash>`: an operator's console session."""

    table_setting = "sessions"
    name = "console_sessions"

    def create(self, *, tenant_id: str, username: str, user_id: str, generation: int, auth_time: int,
               expires_at: int, sid: str, id_token: str) -> tuple[str, ConsoleSession]:
        """A new session; (the cookie's secret, the record)."""
        secret = secrets.token_urlsafe(32)
        session = ConsoleSession(session_key(secret), tenant_id, username, user_id, generation, auth_time,
                                 expires_at, clock.seconds(), sid, id_token)
        self.upsert(records.to_item(FIELDS, session._asdict()), "create",
                    condition="attribute_not_exists(session_hash)")
        return secret, session

    def prefetch(self, reads: BatchRead, secret: str) -> Pending | None:
        """Register a cookie secret's session in a request's batch read (None: no secret a session can have)."""
        if not 20 <= len(secret) <= MAX_SECRET:
            return None
        return reads.add(self.table, {"session_hash": s(session_key(secret))})

    @staticmethod
    def found_live(pending: Pending | None) -> ConsoleSession | None:
        """The live session a prefetched read found (None: absent or ended)."""
        item = pending.item if pending is not None else None
        if not item:
            return None
        session = ConsoleSession(**records.from_item(FIELDS, item))
        return session if session.live(clock.seconds()) else None

    def end(self, session: ConsoleSession) -> None:
        """Delete the session (sign-out)."""
        self.destroy({"session_hash": s(session.session_hash)}, "end")
