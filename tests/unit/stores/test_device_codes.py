"""stores.device_codes (RFC 8628 3.2-3.5): hashed codes, one write per pending poll, slow_down, one redemption."""

from __future__ import annotations

import threading
from collections import Counter

import boto3

from authgate.clock import ManualClock
from authgate.single_use.authentication import Authentication
from authgate.single_use.device_codes import parts
from authgate.stores.device_codes import DeviceCodeStore


def test_only_hashes_are_stored_and_the_user_code_finds_the_request(aws: None, clock: ManualClock) -> None:
    store = DeviceCodeStore()
    device_code, user_code, record = store.create(client_id="tv", tenant_id="demo", scope="charges:read",
                                                  resource=None)
    items = boto3.client("dynamodb").scan(TableName="CodesTable")["Items"]
    assert len(items) == 1 and items[0]["code_hash"]["S"].startswith("device#")
    assert user_code not in str(items) and device_code.partition(".")[2] not in str(items)
    assert (record.state, record.interval, record.expires_at - record.issued_at) == ("pending", 5, 600)
    assert store.pending(user_code) == record


def test_a_pending_poll_is_one_write(reads: Counter[str], clock: ManualClock) -> None:
    store = DeviceCodeStore()
    device_code, _, _ = store.create(client_id="tv", tenant_id="demo", scope="charges:read", resource=None)
    reads.clear()
    assert store.poll(*parts(device_code) or ("", ""), "tv") == ("pending", None)  # type: ignore[misc]
    assert reads == Counter({"UpdateItem": 1})


def test_too_early_raises_the_interval_by_five_seconds(aws: None, clock: ManualClock) -> None:
    store = DeviceCodeStore()
    device_code, user_code, _ = store.create(client_id="tv", tenant_id="demo", scope="charges:read", resource=None)
    code, secret = parts(device_code) or ("", "")
    assert store.poll(code, secret, "tv")[0] == "pending"
    clock.advance(3)
    outcome, record = store.poll(code, secret, "tv")
    assert outcome == "slow_down" and record is not None
    found = store.pending(user_code)
    assert found is not None and (found.interval, found.next_poll_at) == (10, int(clock()) + 10)


def test_an_approval_is_redeemed_once(aws: None, clock: ManualClock) -> None:
    store = DeviceCodeStore()
    device_code, user_code, _ = store.create(client_id="tv", tenant_id="demo", scope="openid", resource=None)
    pending = store.pending(user_code)
    assert pending is not None
    signed_in = Authentication(user_id="usr_x", auth_time=int(clock()), acr="mfa", amr=("pwd", "otp", "mfa"),
                               sid="sid-1")
    assert store.decide(pending, approved=True, subject="alice", authentication=signed_in, grant_id="g-1")
    assert not store.decide(pending, approved=False)  # decided already
    assert store.pending(user_code) is None
    outcome, record = store.poll(*parts(device_code) or ("", ""), "tv")  # type: ignore[misc]
    assert outcome == "approved" and record is not None
    assert (record.subject, record.grant_id, record.authentication) == ("alice", "g-1", signed_in)
    wins: list[bool] = []
    threads = [threading.Thread(target=lambda: wins.append(store.redeem(record))) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == [False] * 4 + [True]
    assert store.poll(*parts(device_code) or ("", ""), "tv")[0] == "redeemed"  # type: ignore[misc]


def test_another_clients_or_a_forged_device_code_finds_nothing(aws: None, clock: ManualClock) -> None:
    store = DeviceCodeStore()
    device_code, user_code, _ = store.create(client_id="tv", tenant_id="demo", scope="openid", resource=None)
    assert store.poll(*parts(device_code) or ("", ""), "other") == ("unknown", None)  # type: ignore[misc]
    assert store.poll(*parts(f"{user_code}.guessed") or ("", ""), "tv") == ("unknown", None)  # type: ignore[misc]
    assert parts("BCDFGHJKLM") is None and parts("AAAAAAAAAA.x") is None
    clock.advance(600)
    assert store.poll(*parts(device_code) or ("", ""), "tv")[0] == "expired"  # type: ignore[misc]
    assert store.pending(user_code) is None
