"""federation.upstream_sessions.named: the sessions an upstream logout names, by sid or by sub (moto)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.federation.upstream_sessions import named

pytestmark = pytest.mark.usefixtures("aws")

OP = "https://op.example"


def session(user_id: str = "usr_a", *, issuer: str = OP, subject: str = "sub-1", sid: str = "op-sid-1",
            tenant_id: str = "t1", local: bool = False) -> Any:
    from authgate.sessions.model import Upstream
    from authgate.stores.sessions import SessionStore

    upstream = None if local else Upstream(issuer, "op", "oidc", subject, sid=sid)
    return SessionStore().create(tenant_id=tenant_id, user_id=user_id, username=user_id, acr="password",
                                 amr=("fed",), generation=0, upstream=upstream)[1]


def sids(found: list[Any]) -> set[str]:
    return {s.sid for s in found}


def test_by_sid_the_sessions_that_upstream_session_opened_of_that_subject_when_named() -> None:
    one, two = session(), session("usr_b")
    session(sid="op-sid-2"), session(issuer="https://other.example"), session(tenant_id="t2"), session(local=True)
    assert sids(named("t1", OP, session_id="op-sid-1")) == {one.sid, two.sid}
    assert sids(named("t1", OP, subject="sub-1", session_id="op-sid-1")) == {one.sid, two.sid}
    assert named("t1", OP, subject="sub-2", session_id="op-sid-1") == []
    assert named("t1", OP, session_id="never") == [] and named("t1", OP) == []


def test_by_sub_alone_the_linked_users_sessions_from_that_upstream_subject() -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity

    user = UserStore().put_hash("t1", "alice", "!")
    LinkedIdentityStore().link(LinkedIdentity("t1", OP, "sub-1", user.user_id, "alice", 1, "proof"))
    first, second = session(user.user_id), session(user.user_id, sid="")
    session(user.user_id, local=True), session(user.user_id, subject="sub-9"), session(user.user_id, issuer="x:y")
    assert sids(named("t1", OP, subject="sub-1")) == {first.sid, second.sid}
    assert named("t1", OP, subject="sub-unlinked") == [] and named("t2", OP, subject="sub-1") == []
