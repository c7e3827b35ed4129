"""stores.console_sessions against moto: a console session is found by its secret, keyed apart from sign-in sessions."""

from __future__ import annotations

import boto3

from authgate.clock import ManualClock


def test_a_session_is_found_until_its_end_and_holds_only_its_secrets_hash(aws: None, clock: ManualClock) -> None:
    from authgate.stores.batch import BatchRead
    from authgate.stores.console_sessions import ConsoleSessionStore

    store = ConsoleSessionStore()
    secret, session = store.create(tenant_id="operators", username="olivia", user_id="usr_olivia", generation=2,
                                   auth_time=int(clock()), expires_at=int(clock()) + 60, sid="sid-1",
                                   id_token="a.b.c")

    def read(value: str) -> object:
        reads = BatchRead()
        pending = store.prefetch(reads, value)
        reads.run()
        return store.found_live(pending)

    assert read(secret) == session
    (item,) = boto3.client("dynamodb").scan(TableName="SessionsTable")["Items"]
    assert secret not in str(item) and item["session_hash"]["S"].startswith("console#")
    assert "user_key" not in item  # in nobody's list of sign-in sessions
    assert read(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
    assert store.prefetch(BatchRead(), "short") is None
    clock.advance(59)
    assert read(secret) == session
    clock.advance(1)
    assert read(secret) is None
    store.end(session)
    assert boto3.client("dynamodb").scan(TableName="SessionsTable")["Items"] == []
