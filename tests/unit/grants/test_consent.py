"""grants.consent: a withdrawn consent is forgotten, every grant made under it revoked, the person's act recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from authgate.clock import ManualClock
from authgate.grants.consent import withdraw
from authgate.stores.consents import ConsentStore
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.revocations import RevocationStore

ALICE = "usr_0123456789abcdefghijkl"
Events = Callable[[], list[dict[str, Any]]]


def allowed(now: int, *families: str) -> None:
    store = ConsentStore()
    store.remember("demo", ALICE, "web", ("openid", "offline_access"), None)
    for family in families:
        RefreshTokenStore().start_family(family_id=family, client_id="web", tenant_id="demo", subject="alice",
                                         scope="openid", now=now, also=(store.grant_write("demo", ALICE, "web", family),))
    RefreshTokenStore().start_family(family_id="other", client_id="spa", tenant_id="demo", subject="alice",
                                     scope="openid", now=now, also=(store.grant_write("demo", ALICE, "spa", "other"),))


def test_the_persons_withdrawal_revokes_the_clients_grants_only_and_is_recorded(
        aws: None, clock: ManualClock, audit_events: Events) -> None:
    now = int(clock())
    allowed(now, "g1", "g2")
    withdrawn = withdraw("demo", ALICE, "web", now, username="alice")
    assert withdrawn is not None and withdrawn.grants == ("g1", "g2")
    refresh = RefreshTokenStore()
    assert not refresh.family_active("g1") and not refresh.family_active("g2") and refresh.family_active("other")
    assert RevocationStore().is_revoked("any-jti", "g1", now) and not RevocationStore().is_revoked("any-jti", "other",
                                                                                                   now)
    assert [c.client_id for c in ConsentStore().of_user("demo", ALICE)] == ["spa"]
    (event,) = [e for e in audit_events() if e["action"] == "consent.revoked"]
    assert {k: event[k] for k in ("tenant", "actor", "target", "outcome", "details")} == {
        "tenant": "demo", "actor": {"type": "user", "id": ALICE}, "target": {"type": "user", "id": ALICE},
        "outcome": "success", "details": {"username": "alice", "client_id": "web", "grants_revoked": 2}}


def test_nothing_to_withdraw_records_nothing_and_an_operators_withdrawal_is_recorded_by_the_command(
        aws: None, clock: ManualClock, audit_events: Events) -> None:
    now = int(clock())
    assert withdraw("demo", ALICE, "web", now, username="alice") is None
    allowed(now)
    withdrawn = withdraw("demo", ALICE, "web", now)
    assert withdrawn is not None and withdrawn.grants == ()
    assert [e for e in audit_events() if e["action"] == "consent.revoked"] == []
