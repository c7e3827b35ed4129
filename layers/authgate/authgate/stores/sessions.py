"""SessionsTable: sign-in sessions (single sign-on), by the SHA-256 of the cookie's secret (authgate.sessions.model).

Only the hash is stored; the secret exists in the browser's cookie alone. Reading a session is
one GetItem; using it for a new code is one UpdateItem (last_active, and the client added to
`clients`). A user's sessions are listed and ended through the UserSessions index; a federated session
whose upstream sent a session id is also in the sparse UpstreamSessions index (sessions.model.upstream_key),
by which an upstream back-channel logout finds the sessions it started.
"""

from __future__ import annotations

import secrets
from typing import Any

from authgate import clock
from authgate.records import n, s, ss
from authgate.sessions.model import (
    Session,
    Upstream,
    hash_secret,
    item_of,
    session_of,
    upstream_key,
    user_key,
)
from authgate.settings import get_settings
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.users.model import User

# An opaque cookie value is 43 url-safe characters; anything else is never looked up.
MAX_SECRET = 64


def _key(session_hash: str) -> dict[str, Any]:
    return {"session_hash": s(session_hash)}


def _item(session: Session) -> dict[str, Any]:
    """The session's item with its index keys: UserSessions', and UpstreamSessions' when its upstream sent a sid."""
    keys = {"user_key": s(user_key(session.tenant_id, session.user_id))}
    if session.upstream is not None and session.upstream.sid:
        keys["upstream_key"] = s(upstream_key(session.tenant_id, session.upstream.issuer, session.upstream.sid))
    return item_of(session, **keys)


class SessionStore(TableStore):
    """SessionsTable: session_hash -> the sign-in."""

    table_setting = "sessions"

    def create(self, *, tenant_id: str, user_id: str, username: str, acr: str, amr: tuple[str, ...],
               generation: int, auth_time: int | None = None, sid: str | None = None,
               upstream: Upstream | None = None) -> tuple[str, Session]:
        """A new session (or a new secret for `sid` after a step that raised its level), opened by `upstream`'s
        sign-in when a federated one; (cookie secret, record)."""
        now = clock.seconds()
        secret = secrets.token_urlsafe(32)
        session = Session(session_hash=hash_secret(secret), sid=sid or secrets.token_urlsafe(16),
                          tenant_id=tenant_id, user_id=user_id, username=username,
                          auth_time=now if auth_time is None else auth_time, acr=acr, amr=amr,
                          created_at=now, last_active=now,
                          expires_at=now + get_settings().session_lifetime, generation=generation,
                          upstream=upstream)
        item = _item(session)
        self.upsert(item, "create", condition="attribute_not_exists(session_hash)")
        return secret, session

    def raised(self, session: Session, *, acr: str, amr: tuple[str, ...], auth_time: int,
               alongside: dict[str, Any] | None = None) -> tuple[str, Session] | None:
        """`session` at a higher level after a sign-in step (a second factor): the same sid, clients, grants and
        lifetime under a new secret (session fixation, identity-design); (cookie secret, record), or None when
        the old secret's record was gone already (ended, or raised by a concurrent step: only one step wins).

        One TransactWriteItems: the old record deleted on the condition that it still exists and the new one
        put, both or neither, so a secret known before the step opens nothing and two concurrent steps cannot
        both open a session. `alongside`: the step's credential write (UserStore.judged) in the same transaction,
        first; AttemptOvertaken when its condition failed (nothing written)."""
        from botocore.exceptions import ClientError

        from authgate.stores.faults import cancellation_codes
        from authgate.users.errors import AttemptOvertaken

        secret = secrets.token_urlsafe(32)
        raised = session._replace(session_hash=hash_secret(secret), acr=acr, amr=amr, auth_time=auth_time,
                                  last_active=clock.seconds())
        item = _item(raised)
        try:
            with self.faults("raise"):
                self.db.transact_write_items(TransactItems=[
                    *([alongside] if alongside is not None else []),
                    {"Delete": {"TableName": self.table, "Key": _key(session.session_hash),
                                "ConditionExpression": "attribute_exists(session_hash)"}},
                    {"Put": {"TableName": self.table, "Item": item,
                             "ConditionExpression": "attribute_not_exists(session_hash)"}},
                ])
        except ClientError as exc:
            codes = cancellation_codes(exc.response)
            if alongside is not None:
                if codes[:1] in (["ConditionalCheckFailed"], ["TransactionConflict"]):
                    raise AttemptOvertaken(session.sid) from None
                codes = codes[1:]
            # The old record is gone, or a concurrent step is raising it: that step wins.
            if codes[:1] in (["ConditionalCheckFailed"], ["TransactionConflict"]):
                return None
            raise
        return secret, raised

    def live(self, secret: str) -> Session | None:
        """The live session of a cookie secret, or None (unknown, expired or idle too long)."""
        if not secret or len(secret) > MAX_SECRET:
            return None
        return self.found_live(self.find(_key(hash_secret(secret))))

    def prefetch(self, reads: BatchRead, secret: str) -> Pending | None:
        """Register a cookie secret's session in a request's batch read (None: no secret a session can have)."""
        if not secret or len(secret) > MAX_SECRET:
            return None
        return reads.add(self.table, _key(hash_secret(secret)))

    @staticmethod
    def found_live(item: dict[str, Any] | None) -> Session | None:
        """The live session an item holds, or None (absent, expired or idle too long)."""
        if not item:
            return None
        session = session_of(item)
        return session if session.live(clock.seconds()) else None

    def used_by(self, session: Session, client_id: str, grant_id: str | None = None) -> None:
        """The session gave `client_id` a code: it is active now, the client is in its logout fan-out, and
        `grant_id` (when given) ends with it."""
        values = {":now": n(clock.seconds()), ":client": ss([client_id])}
        update = "SET last_active = :now ADD clients :client"
        if grant_id:
            update, values = update + ", grants :grant", {**values, ":grant": ss([grant_id])}
        with self.faults("use"):
            self.db.update_item(TableName=self.table, Key=_key(session.session_hash), UpdateExpression=update,
                                ConditionExpression="attribute_exists(session_hash)",
                                ExpressionAttributeValues=values)

    def end(self, session_hash: str) -> None:
        """Delete one session (sign-out)."""
        self.destroy(_key(session_hash), "end")

    def standing(self, user: User) -> list[Session]:
        """The user's sessions that still count, oldest first: live, and admitted by the user (User.admits)."""
        now = clock.seconds()
        return [session for session in self.of_user(user.tenant_id, user.user_id)
                if session.live(now) and user.admits(session.user_id, session.generation, session.auth_time)] \
            if user.user_id else []

    def of_user(self, tenant_id: str, user_id: str) -> list[Session]:
        """Every session of a user, oldest first, live or not yet swept (UserSessions index)."""
        return self._index("of_user", "UserSessions", "user_key", user_key(tenant_id, user_id))

    def of_upstream(self, tenant_id: str, issuer: str, upstream_sid: str) -> list[Session]:
        """Every session of the tenant an upstream sign-in with session id `upstream_sid` at `issuer` opened, live or
        not yet swept (UpstreamSessions index; one Query: an upstream session opens a few at most)."""
        return self._index("of_upstream", "UpstreamSessions", "upstream_key",
                           upstream_key(tenant_id, issuer, upstream_sid))

    def _index(self, operation: str, index: str, attribute: str, value: str) -> list[Session]:
        out: list[Session] = []
        start: dict[str, Any] | None = None
        while True:
            with self.faults(operation):
                page = self.db.query(TableName=self.table, IndexName=index,
                                     KeyConditionExpression=f"{attribute} = :k",
                                     ExpressionAttributeValues={":k": s(value)},
                                     **({"ExclusiveStartKey": start} if start else {}))
            out.extend(session_of(item) for item in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if not start:
                return out
