"""stores.sessions and stores.consents against moto: only the secret's hash is kept, expiry is checked here."""

from __future__ import annotations

import boto3

from authgate.clock import ManualClock
from authgate.sessions.model import hash_secret
from authgate.settings import Settings

# The stage's defaults (settings.session_lifetime, session_idle): what these tests run under.
LIFETIME, IDLE = Settings().session_lifetime, Settings().session_idle


def test_a_session_is_found_by_its_secret_and_the_table_holds_only_its_hash(aws: None, clock: ManualClock) -> None:
    from authgate.stores.sessions import SessionStore

    store = SessionStore()
    secret, session = store.create(tenant_id="demo", user_id="usr_a", username="alice", acr="password",
                                   amr=("pwd",), generation=0)
    assert store.live(secret) == session
    (item,) = boto3.client("dynamodb").scan(TableName="SessionsTable")["Items"]
    assert secret not in str(item)
    assert item["session_hash"] == {"S": hash_secret(secret)} and item["user_key"] == {"S": "demo#usr_a"}
    assert store.live(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
    assert store.live("x" * 100) is None


def test_a_session_dies_when_idle_or_old_and_when_ended(aws: None, clock: ManualClock) -> None:
    from authgate.stores.sessions import SessionStore

    store = SessionStore()
    secret, session = store.create(tenant_id="demo", user_id="usr_a", username="alice", acr="password",
                                   amr=("pwd",), generation=0)
    clock.advance(IDLE - 1)
    store.used_by(session, "demo-web")
    clock.advance(IDLE - 1)
    assert store.live(secret) is not None  # kept alive by its use
    clock.advance(IDLE)
    assert store.live(secret) is None  # idle
    secret, session = store.create(tenant_id="demo", user_id="usr_a", username="alice", acr="password",
                                   amr=("pwd",), generation=0)
    for _ in range(LIFETIME // (IDLE - 1) + 1):
        clock.advance(IDLE - 1)
        store.used_by(session, "demo-web")
    assert store.live(secret) is None  # past its absolute lifetime, however active
    secret, session = store.create(tenant_id="demo", user_id="usr_a", username="alice", acr="password",
                                   amr=("pwd",), generation=0)
    store.end(session.session_hash)
    assert store.live(secret) is None


def test_consent_is_remembered_per_client_and_resource_and_can_be_forgotten(aws: None) -> None:
    from authgate.stores.batch import BatchRead
    from authgate.stores.consents import ConsentStore

    store = ConsentStore()

    def covers(user_id: str, client_id: str, scopes: tuple[str, ...], resource: str | None = None) -> bool:
        reads = BatchRead()
        pending = store.prefetch(reads, "demo", user_id, client_id)
        reads.run()
        return store.covers(pending.item, scopes, resource)

    assert not covers("usr_a", "web", ("openid",))
    store.remember("demo", "usr_a", "web", ("openid", "charges:read"), None)
    store.remember("demo", "usr_a", "web", ("profile",), None)
    assert covers("usr_a", "web", ("openid", "profile", "charges:read"))
    assert not covers("usr_a", "web", ("openid", "charges:write"))
    assert not covers("usr_a", "web", ("openid",), "https://mcp.example.com/mcp")
    assert not covers("usr_a", "spa", ("openid",))
    assert not covers("usr_b", "web", ("openid",))
    store.forget("demo", "usr_a", "web")
    assert not covers("usr_a", "web", ("openid",))


def test_a_raised_session_is_one_transaction_and_only_one_step_raises_it(aws: None, clock: ManualClock) -> None:
    """stores.sessions.raised: the old secret's record deleted and the new one put in one TransactWriteItems; a
    second raise of the same (now gone) record is None and writes nothing."""
    from authgate.aws import dynamodb
    from authgate.stores.sessions import SessionStore

    store = SessionStore()
    secret, session = store.create(tenant_id="demo", user_id="usr_a", username="alice", acr="password",
                                   amr=("pwd",), generation=0)
    calls: list[str] = []
    dynamodb().meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    raised = store.raised(session, acr="mfa", amr=("mfa", "otp", "pwd"), auth_time=5)
    assert raised is not None and calls == ["TransactWriteItems"]
    new_secret, record = raised
    assert (record.sid, record.acr, record.amr, record.auth_time) == (session.sid, "mfa", ("mfa", "otp", "pwd"), 5)
    assert store.live(secret) is None and store.live(new_secret) == record
    assert store.raised(session, acr="mfa", amr=("mfa", "otp", "pwd"), auth_time=5) is None
    assert len(boto3.client("dynamodb").scan(TableName="SessionsTable")["Items"]) == 1


def test_a_raised_federated_session_stays_findable_by_its_upstream_sid(aws: None, clock: ManualClock) -> None:
    from authgate.sessions.model import Upstream
    from authgate.stores.sessions import SessionStore

    store = SessionStore()
    _, session = store.create(tenant_id="demo", user_id="usr_a", username="alice", acr="password", amr=("fed",),
                              generation=0, upstream=Upstream("https://op.example", "op", "oidc", "s-1", sid="op-1"))
    raised = store.raised(session, acr="mfa", amr=("fed", "otp"), auth_time=5)
    assert raised is not None
    assert store.of_upstream("demo", "https://op.example", "op-1") == [raised[1]]


def test_a_users_standing_sessions_are_the_live_ones_of_this_person_since_their_sessions_last_ended(
        aws: None, clock: ManualClock) -> None:
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore

    users, store = UserStore(), SessionStore()
    user = users.put_hash("demo", "ann", "hash", overwrite=False, user_id="usr_ann")
    _, old = store.create(tenant_id="demo", user_id="usr_ann", username="ann", acr="password", amr=("pwd",),
                          generation=0)
    clock.advance(IDLE)
    _, live = store.create(tenant_id="demo", user_id="usr_ann", username="ann", acr="password", amr=("pwd",),
                           generation=0)
    assert store.standing(user) == [live]  # the first is idle
    users.end_sessions("demo", "ann", int(clock()))
    user = users.get("demo", "ann")
    assert user is not None and store.standing(user) == []
    assert store.standing(user._replace(user_id="")) == [] and old.sid != live.sid
