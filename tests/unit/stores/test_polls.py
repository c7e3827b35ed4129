"""stores.polls: the one poll of the device grant and CIBA (RFC 8628 3.5; CIBA Core 11) as writes, on moto."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.records import s
from authgate.stores.backchannel_requests import BackchannelRequestStore
from authgate.stores.device_codes import DeviceCodeStore
from authgate.stores.polls import PolledStore


def test_a_decision_made_before_the_slow_down_write_stands(aws: None, clock: ManualClock) -> None:
    """A poll refused as too fast read the request pending; the person decides before its slow_down write: that
    write changes nothing (it holds only while pending), and the next poll sees the decision."""
    from authgate.single_use.authentication import Authentication

    store = BackchannelRequestStore()
    _, record = store.create(client_id="c", tenant_id="demo", user_id="usr_x", username="x", scope="openid",
                             binding_message="", lifetime=300, interval=5)
    signed_in = Authentication("usr_x", int(clock()), "mfa", ("pwd", "otp", "mfa"), generation=0)
    assert store.decide(record.key, "x", signed_in, approved=False)
    assert store.refused(record.key, state="pending", expires_at=record.expires_at, interval=5,
                         now=int(clock())) == "slow_down"
    found = store.find({"code_hash": {"S": record.key}})
    assert found is not None and (found["state"]["S"], found["interval"]["N"]) == ("denied", "5")



def _pending(kind: str) -> tuple[PolledStore, str]:
    """A pending record of client `c` polled every 5 s: a device authorization or a backchannel request."""
    if kind == "device":
        _, _, device = DeviceCodeStore().create(client_id="c", tenant_id="demo", scope="openid", resource=None)
        return DeviceCodeStore(), device.code_hash
    _, request = BackchannelRequestStore().create(client_id="c", tenant_id="demo", user_id="usr_x", username="x",
                                                  scope="openid", binding_message="", lifetime=300, interval=5)
    return BackchannelRequestStore(), request.key


@pytest.mark.parametrize("kind", ["device", "ciba"])
def test_both_grants_poll_by_one_rule(aws: None, clock: ManualClock, kind: str) -> None:
    """RFC 8628 3.5 and CIBA Core 11, one rule: a poll a second early still passes, and after slow_down the grown
    interval counts from the refused poll (when a client that obeys it polls again)."""
    store, key = _pending(kind)

    def poll() -> str:
        now = int(clock())
        old = store.poll_once(key, "client_id = :client", {":client": s("c")}, now)
        if old is None:
            return "pending"
        return store.refused(key, state=old["state"]["S"], expires_at=int(old["expires_at"]["N"]),
                             interval=int(old["interval"]["N"]), now=now)

    assert poll() == "pending"
    clock.advance(4)
    assert poll() == "pending"
    assert poll() == "slow_down"
    found = store.find({"code_hash": {"S": key}})
    assert found is not None
    assert (found["interval"]["N"], found["next_poll_at"]["N"]) == ("10", str(int(clock()) + 10))
    clock.advance(9)
    assert poll() == "pending"
