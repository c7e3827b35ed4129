"""PasskeyStore and WebAuthnChallengeStore against moto: a passkey per credential id, a user's list by index, the
counter moved only from the value checked, removal by owner; challenges single use, short-lived, bound."""

from __future__ import annotations

import secrets

import pytest

from authgate import base64url
from authgate.clock import ManualClock
from authgate.single_use.webauthn_challenges import LIFETIME, Challenge, ChallengeRefused
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.webauthn_challenges import WebAuthnChallengeStore
from authgate.users import passkey_ceremonies as ceremonies
from authgate.users.errors import PasskeyRefused
from authgate.users.passkeys import Passkey
from tests.webauthn_authenticator import SoftAuthenticator


def passkey(credential_id: str, username: str = "bob", created_at: int = 1) -> Passkey:
    return Passkey(credential_id, "demo", username, "cose", 0, "Laptop", created_at, transports=("internal",))


def test_a_passkey_is_kept_by_credential_id_and_listed_for_its_user(aws: None) -> None:
    store = PasskeyStore()
    store.add(passkey("cred-b", created_at=2))
    store.add(passkey("cred-a", created_at=1))
    store.add(passkey("cred-c", username="alice"))
    assert store.get("cred-a") == passkey("cred-a")
    assert [p.credential_id for p in store.of_user("demo", "bob")] == ["cred-a", "cred-b"]
    with pytest.raises(PasskeyRefused, match="already enrolled"):
        store.add(passkey("cred-a", username="alice"))
    assert store.remove("demo", "alice", "cred-a") is False  # not alice's
    assert store.remove("demo", "bob", "cred-a") is True
    assert store.get("cred-a") is None and store.remove("demo", "bob", "cred-a") is False


def test_a_use_moves_the_counter_only_from_the_value_it_was_checked_against(aws: None) -> None:
    store = PasskeyStore()
    store.add(passkey("cred-a"))
    checked = store.get("cred-a")
    assert checked is not None
    store.used(checked, 1, True, 500)
    after = store.get("cred-a")
    assert after is not None and (after.sign_count, after.backed_up, after.last_used_at) == (1, True, 500)
    with pytest.raises(PasskeyRefused, match="used or removed meanwhile"):
        store.used(checked, 1, True, 501)  # a second use checked against the old counter (a clone's race)


def test_a_challenge_is_spent_once_by_its_own_ceremony_and_caller(aws: None, clock: ManualClock) -> None:
    store = WebAuthnChallengeStore()
    challenge = store.issue("register", "session-1", "demo", "bob")
    encoded = base64url.encode(challenge)
    for purpose, binding in (("authenticate", "session-1"), ("register", "session-2")):
        with pytest.raises(ChallengeRefused):
            store.consume(encoded, purpose, binding)  # type: ignore[arg-type]
    assert store.consume(encoded, "register", "session-1") == Challenge(challenge, "register", "demo", "bob")
    with pytest.raises(ChallengeRefused):
        store.consume(encoded, "register", "session-1")
    late = base64url.encode(store.issue("authenticate", "session-1", "demo"))
    clock.advance(LIFETIME)
    with pytest.raises(ChallengeRefused):
        store.consume(late, "authenticate", "session-1")
    for garbage in ("", "!!", base64url.encode(secrets.token_bytes(32))):
        with pytest.raises(ChallengeRefused):
            store.consume(garbage, "authenticate", "session-1")


def test_register_then_sign_in_username_less(aws: None, clock: ManualClock) -> None:
    """The whole ceremony as the sign-in step will run it: a challenge bound to the session, the registration
    stored, then an assertion found by its credential id alone, verified, and its counter recorded."""
    challenges, store, device = WebAuthnChallengeStore(), PasskeyStore(), SoftAuthenticator()
    issued = challenges.issue("register", "sid-1", "demo", "bob")
    response = device.register(issued)
    spent = challenges.consume(ceremonies.challenge_of(response), "register", "sid-1")
    store.add(ceremonies.verify_registration(credential=response, challenge=spent.challenge, rp_id="localhost",
                                             origin="http://localhost:3000", tenant_id=spent.tenant_id,
                                             username=spent.username, name="Phone", now=int(clock())))
    issued = challenges.issue("authenticate", "sid-2", "demo")
    assertion = device.assertion(issued)
    spent = challenges.consume(ceremonies.challenge_of(assertion), "authenticate", "sid-2")
    held = store.get(ceremonies.credential_id_of(assertion))
    assert held is not None and (held.tenant_id, held.username) == ("demo", "bob")
    asserted = ceremonies.verify_authentication(credential=assertion, challenge=spent.challenge, rp_id="localhost",
                                                origin="http://localhost:3000", passkey=held)
    store.used(held, asserted.sign_count, asserted.backed_up, int(clock()))
    used = store.get(held.credential_id)
    assert used is not None and used.sign_count == 1



def counted(username: str = "bob") -> object:
    """The count of passkeys on the user's UsersTable item as stored (None: absent)."""
    from authgate.stores.user_items import key
    from authgate.stores.users import UserStore

    item = UserStore().db.get_item(TableName=UserStore().table, Key=key("demo", username))["Item"]
    return int(item["passkeys"]["N"]) if "passkeys" in item else None


def test_a_new_users_item_counts_their_passkeys_with_each_add_and_remove(aws: None) -> None:
    """The count moves in the passkey's own TransactWriteItems, so a sign-in's step reads it from the user's item."""
    from authgate.stores.user_items import key, passkeys_held
    from authgate.stores.users import UserStore

    users, store = UserStore(), PasskeyStore()
    users.put_hash("demo", "bob", "hash", overwrite=False)
    assert counted() == 0
    store.add(passkey("cred-a"))
    store.add(passkey("cred-b"))
    assert counted() == 2
    with pytest.raises(PasskeyRefused, match="already enrolled"):
        store.add(passkey("cred-a"))
    assert store.remove("demo", "alice", "cred-a") is False  # not alice's: nothing written, nothing counted
    assert counted() == 2
    assert store.remove("demo", "bob", "cred-a") is True and counted() == 1
    assert store.remove("demo", "bob", "cred-b") is True and counted() == 0
    item = users.db.get_item(TableName=users.table, Key=key("demo", "bob"))["Item"]
    assert passkeys_held(item) is False and store.held("demo", "bob", passkeys_held(item)) is False


def test_an_item_written_before_the_count_gets_its_first_count_from_a_query(aws: None) -> None:
    """An item without the count (written before it existed, or replaced by `users create --overwrite`) reads as
    unknown, so a sign-in falls back to the Query; the next add or remove counts the passkeys and sets it."""
    from authgate.stores.user_items import key, passkeys_held
    from authgate.stores.users import UserStore

    users, store = UserStore(), PasskeyStore()
    users.put_hash("demo", "bob", "hash", overwrite=False)
    store.add(passkey("cred-a"))
    users.put_hash("demo", "bob", "hash")  # replaced: cred-a is still bob's, the count is unknown
    assert counted() is None
    item = users.db.get_item(TableName=users.table, Key=key("demo", "bob"))["Item"]
    assert passkeys_held(item) is None and store.held("demo", "bob", None) is True
    store.add(passkey("cred-b"))
    assert counted() == 2
    users.put_hash("demo", "bob", "hash")
    assert store.remove("demo", "bob", "cred-a") is True and counted() == 1
    assert store.held("demo", "bob", None) is True


def test_a_passkey_of_a_user_whose_item_is_gone_is_still_kept_and_removed(aws: None) -> None:
    """`users delete` deletes the user's item first, then their passkeys: nothing is counted, no item made up."""
    from authgate.stores.user_items import key
    from authgate.stores.users import UserStore

    store = PasskeyStore()
    store.add(passkey("cred-a", username="carol"))
    assert store.remove("demo", "carol", "cred-a") is True
    assert "Item" not in UserStore().db.get_item(TableName=UserStore().table, Key=key("demo", "carol"))


def test_concurrent_adds_to_an_item_without_the_count_count_every_passkey(aws: None) -> None:
    """Several first counts at once: one sets the count, the others find it set and add to it; none is lost."""
    import threading

    from authgate.stores.users import UserStore

    UserStore().put_hash("demo", "bob", "hash")  # no count
    store = PasskeyStore()
    store.add(passkey("cred-0"))  # the first count: 1
    UserStore().put_hash("demo", "bob", "hash")  # replaced: cred-0 is still bob's, the count unknown again
    barrier = threading.Barrier(6)

    def add(credential_id: str) -> None:
        barrier.wait()
        store.add(passkey(credential_id))

    threads = [threading.Thread(target=add, args=(f"cred-{i}",)) for i in range(1, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.of_user("demo", "bob")) == 7 and counted() == 7


def test_an_add_overtaken_by_concurrent_transactions_every_time_is_service_unavailable(aws: None) -> None:
    """DynamoDB cancels a transaction whose items another transaction is writing (TransactionConflict): the add is
    tried again, and after COUNT_TRIES such answers it is "try again later" (503), not an unexpected error."""
    import boto3
    from botocore.stub import Stubber

    from authgate.failures import api_error
    from authgate.stores.exceptions import StorageUnavailable
    from authgate.stores.passkeys import COUNT_TRIES

    client = boto3.client("dynamodb")
    stub = Stubber(client)
    for _ in range(COUNT_TRIES):
        stub.add_client_error("transact_write_items", "TransactionCanceledException", http_status_code=400,
                              modeled_fields={"CancellationReasons": [{"Code": "None"},
                                                                      {"Code": "TransactionConflict"}]})
    with stub, pytest.raises(StorageUnavailable) as info:
        PasskeyStore(dynamodb=client).add(passkey("cred-a"))
    stub.assert_no_pending_responses()
    error = api_error(info.value)
    assert error is not None and (error.code, error.status) == ("service_unavailable", 503)
