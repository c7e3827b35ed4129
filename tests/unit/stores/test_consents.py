"""stores.consents: what a person approved per client and resource, when, and the grants made under it."""

from __future__ import annotations

from authgate.clock import ManualClock
from authgate.stores.consents import Consent, ConsentStore
from authgate.stores.refresh_tokens import RefreshTokenStore

ALICE = "usr_0123456789abcdefghijkl"


def test_approvals_add_up_per_resource_and_say_when(aws: None, clock: ManualClock) -> None:
    store = ConsentStore()
    store.remember("demo", ALICE, "web", ("openid", "charges:read"), None)
    clock.advance(60)
    store.remember("demo", ALICE, "web", ("mcp:read",), "https://files.example/api")
    store.remember("demo", ALICE, "spa", ("openid",), None)
    store.remember("other", ALICE, "web", ("openid",), None)
    store.remember("demo", ALICE, "nothing", (), None)
    now = int(clock())
    assert store.of_user("demo", ALICE) == [
        Consent("spa", {"-": ("openid",)}, now, ()),
        Consent("web", {"-": ("charges:read", "openid"), "https://files.example/api": ("mcp:read",)}, now, ())]
    assert store.of_user("demo", "usr_nobody") == []


def test_a_family_started_under_a_consent_is_kept_with_it_and_forgetting_answers_it(aws: None,
                                                                                   clock: ManualClock) -> None:
    store = ConsentStore()
    store.remember("demo", ALICE, "web", ("openid",), None)
    for family in ("g1", "g2"):
        RefreshTokenStore().start_family(family_id=family, client_id="web", tenant_id="demo", subject="alice",
                                         scope="openid", now=int(clock()),
                                         also=(store.grant_write("demo", ALICE, "web", family),))
    assert store.forget("demo", ALICE, "web") == Consent("web", {"-": ("openid",)}, int(clock()), ("g1", "g2"))
    assert store.of_user("demo", ALICE) == []
    assert store.forget("demo", ALICE, "web") is None


def test_a_grant_under_no_remembered_approval_is_listed_from_its_time(aws: None, clock: ManualClock) -> None:
    """A device's approval is not remembered for the authorization endpoint, but its grant is the person's to end."""
    RefreshTokenStore().start_family(family_id="g1", client_id="tv", tenant_id="demo", subject="alice",
                                     scope="openid", now=int(clock()),
                                     also=(ConsentStore().grant_write("demo", ALICE, "tv", "g1"),))
    assert ConsentStore().of_user("demo", ALICE) == [Consent("tv", {}, int(clock()), ("g1",))]
    assert not ConsentStore.covers({"client_id": {"S": "tv"}, "grants": {"SS": ["g1"]}}, ("openid",), None)
