"""tokens.rotation: the signing-key lifecycle next -> current -> previous -> retired, under the overlap rule.

Keys are made by the local backend (private keys in moto's Secrets Manager), records in moto's KeysTable.
"""

from __future__ import annotations

import json
import re
from typing import Any

import boto3
import pytest

from authgate import caches
from authgate.clock import ManualClock
from authgate.stores.signing_keys import CURRENT, NEXT, PREVIOUS, RETIRED, KeyRecord, KeyStore
from authgate.tokens.rotation import (
    RETIRED_RECORD_SECONDS,
    RotationReport,
    destroy_all,
    ensure_keys,
    new_kid,
    publish_lead,
    retention,
    rotate,
)
from tests.conftest import START

LEAD = 300 + 120          # jwks_max_age + leeway (defaults)
RETENTION = 60 + 900 + 120  # signer cache + access_token_ttl + leeway (defaults)

pytestmark = pytest.mark.usefixtures("es256")


@pytest.fixture
def es256(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """ES256 keys: as real as RS256 for the lifecycle, and quick to make."""
    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "ES256")
    caches.reset()


def states(store: KeyStore | None = None, alg: str = "ES256") -> dict[str, str]:
    """The `alg` keys' states by kid (the access tokens' lifecycle; RS256 keys live beside them for ID tokens)."""
    return {k.kid: k.state for k in (store or KeyStore()).all() if k.alg == alg}


def own(keys: list[KeyRecord], alg: str = "ES256") -> list[KeyRecord]:
    return [k for k in keys if k.alg == alg]


def secret_deleted(secret_id: str) -> bool:
    return "DeletedDate" in boto3.client("secretsmanager").describe_secret(SecretId=secret_id)


def test_the_lead_and_the_retention_follow_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (publish_lead(), retention()) == (LEAD, RETENTION)
    monkeypatch.setenv("AUTHGATE_JWKS_MAX_AGE", "60")
    monkeypatch.setenv("AUTHGATE_LEEWAY", "0")
    monkeypatch.setenv("AUTHGATE_ACCESS_TOKEN_TTL", "3600")
    caches.reset()
    assert (publish_lead(), retention()) == (60, 60 + 3600)


def test_kids_sort_by_creation_and_are_never_reused() -> None:
    kid = new_kid(START)
    assert re.fullmatch(r"20250615T150640Z-[0-9a-f]{8}", kid), kid
    assert new_kid(START) != kid
    assert new_kid(START) < new_kid(START + 1)


def test_bootstrap_makes_a_current_key_at_once_and_a_next_one(clock: ManualClock) -> None:
    report = rotate()
    (current,) = [k for k in own(report.keys) if k.state == CURRENT]
    (incoming,) = [k for k in own(report.keys) if k.state == NEXT]
    assert report.created[0::2] == [current.kid, incoming.kid]  # each beside its RS256 counterpart
    assert (report.promoted, report.demoted, report.retired) == (None, None, [])
    assert (current.activates_at, incoming.activates_at) == (START, START + LEAD)
    assert (current.alg, current.backend, current.created_at) == ("ES256", "local", START)
    public = json.loads(current.public_jwk)
    assert (public["kid"], public["kty"], public["alg"]) == (current.kid, "EC", "ES256") and "d" not in public
    assert current.secret_id and not secret_deleted(current.secret_id)


def test_nothing_moves_before_the_next_key_has_been_public_long_enough(clock: ManualClock) -> None:
    first = rotate()
    clock.advance(LEAD - 1)
    again = rotate()
    assert (again.promoted, again.demoted, again.created, again.retired) == (None, None, [], [])
    assert states() == {k.kid: k.state for k in own(first.keys)}


def test_the_next_key_is_promoted_and_the_current_one_kept_public(clock: ManualClock) -> None:
    from authgate.tokens.current_signer import current_signer

    first = rotate()
    old = next(k.kid for k in own(first.keys) if k.state == CURRENT)
    incoming = next(k.kid for k in own(first.keys) if k.state == NEXT)
    assert current_signer().kid == old
    clock.advance(LEAD)
    report = rotate()
    assert current_signer().kid == incoming  # the signer cache is dropped on a promotion
    assert (report.promoted, report.demoted, report.retired) == (incoming, old, [])
    fresh, _rs256 = report.created  # the access tokens' next key, then the ID tokens' (RS256)
    assert states() == {old: PREVIOUS, incoming: CURRENT, fresh: NEXT}
    previous = KeyStore().get(old)
    assert previous is not None and previous.retires_at == START + LEAD + RETENTION


def test_a_previous_key_retires_after_its_tokens_expired(clock: ManualClock) -> None:
    first = rotate()
    old = next(k for k in own(first.keys) if k.state == CURRENT)
    clock.advance(LEAD)
    rotate()
    clock.advance(RETENTION - 1)
    assert rotate().retired == []
    clock.advance(1)
    report = rotate()
    assert old.kid in report.retired and len(report.retired) == 2  # with its RS256 counterpart
    retired = KeyStore().get(old.kid)
    assert retired is not None and retired.state == RETIRED
    assert retired.expires_at == int(clock()) + RETIRED_RECORD_SECONDS
    assert secret_deleted(old.secret_id)


def test_rotate_is_idempotent_at_one_instant(clock: ManualClock) -> None:
    rotate()
    clock.advance(LEAD)
    rotate()
    after = states()
    for _ in range(3):
        report = rotate()
        assert (report.promoted, report.created, report.retired) == (None, [], [])
    assert states() == after
    assert sorted(after.values()) == [CURRENT, NEXT, PREVIOUS]


def test_a_next_key_is_promoted_at_once_when_there_is_no_current(clock: ManualClock) -> None:
    first = rotate()
    store = KeyStore()
    current = next(k for k in own(first.keys) if k.state == CURRENT)
    store.transition([(current, current.with_state(RETIRED))])
    incoming = next(k.kid for k in own(first.keys) if k.state == NEXT)
    report = rotate()  # before its lead: still the only key that can sign
    assert (report.promoted, report.demoted) == (incoming, None)
    assert states()[incoming] == CURRENT


def test_ensure_keys_only_rotates_when_a_state_is_missing(clock: ManualClock) -> None:
    ensure_keys()
    made = states()
    assert sorted(made.values()) == [CURRENT, NEXT]
    clock.advance(LEAD)  # a rotation would promote now; ensure_keys must not
    ensure_keys()
    assert states() == made


def test_destroy_all_retires_every_live_key(clock: ManualClock) -> None:
    rotate()
    clock.advance(LEAD)
    rotate()
    live = KeyStore().all()
    destroyed = destroy_all()
    assert sorted(destroyed) == sorted(k.kid for k in live)
    assert set(states().values()) == {RETIRED}
    assert all(secret_deleted(k.secret_id) for k in live)
    assert destroy_all() == []


def test_the_report_as_a_dict(clock: ManualClock) -> None:
    report = rotate()
    as_dict: dict[str, Any] = report.as_dict()
    assert {k: as_dict[k] for k in ("promoted", "demoted", "created", "retired", "promotions")} == {
        "promoted": None, "demoted": None, "created": report.created, "retired": [], "promotions": []}
    assert as_dict["keys"] == [{"kid": k.kid, "state": k.state, "alg": k.alg, "backend": "local",
                                "activates_at": k.activates_at, "retires_at": 0} for k in report.keys]
    assert sorted(k["alg"] for k in as_dict["keys"]) == ["ES256", "ES256", "RS256", "RS256"]
    assert RotationReport().as_dict() == {"promoted": None, "demoted": None, "created": [], "retired": [],
                                          "promotions": [], "keys": []}


def test_an_es256_stack_keeps_an_rs256_lifecycle_beside_it(clock: ManualClock) -> None:
    """OIDC Discovery 1.0 3: RS256 is always offered, so ID tokens have an RS256 key of their own."""
    from authgate.tokens.current_signer import current_signer

    first = rotate()
    es, rs = own(first.keys), own(first.keys, "RS256")
    assert sorted(k.state for k in es) == sorted(k.state for k in rs) == [CURRENT, NEXT]
    rs_current = next(k for k in rs if k.state == CURRENT)
    assert json.loads(rs_current.public_jwk)["kty"] == "RSA" and json.loads(rs_current.public_jwk)["alg"] == "RS256"
    assert (current_signer().alg, current_signer(alg="RS256").kid) == ("ES256", rs_current.kid)
    clock.advance(LEAD)
    report = rotate()
    rs_next = next(k.kid for k in rs if k.state == NEXT)
    assert [(p["alg"], p["demoted"]) for p in report.promotions] == [
        ("ES256", next(k.kid for k in es if k.state == CURRENT)), ("RS256", rs_current.kid)]
    assert states(alg="RS256")[rs_current.kid] == PREVIOUS and states(alg="RS256")[rs_next] == CURRENT
    assert current_signer(alg="RS256").kid == rs_next
    assert sorted(k.state for k in KeyStore().published() if k.alg == "RS256") == [CURRENT, NEXT, PREVIOUS]


def test_an_upgraded_es256_stack_publishes_its_rs256_key_before_it_signs(clock: ManualClock) -> None:
    """A stack made before ID tokens had their own key: RS256 starts as next; ES256 signs meanwhile."""
    from authgate.tokens.current_signer import current_signer
    from authgate.tokens.rotation import create_key

    store = KeyStore()
    es_current, ring = create_key(store, CURRENT, START, activates_at=START, alg="ES256")
    create_key(store, NEXT, START, activates_at=START + LEAD, ring=ring, alg="ES256")
    report = rotate()
    (rs_next,) = report.created
    assert states(alg="RS256") == {rs_next: NEXT} and KeyStore().get(rs_next).activates_at == START + LEAD
    assert current_signer(alg="RS256").kid == es_current.kid  # not yet published long enough
    clock.advance(LEAD - 1)
    assert rotate().promotions == []
    clock.advance(1)
    assert [p["alg"] for p in rotate().promotions] == ["ES256", "RS256"]
    assert current_signer(alg="RS256").kid == rs_next


def test_an_rs256_stack_keeps_one_lifecycle(clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "RS256")
    caches.reset()
    report = rotate()
    assert sorted((k.alg, k.state) for k in report.keys) == [("RS256", CURRENT), ("RS256", NEXT)]


def test_keys_of_an_algorithm_no_longer_used_step_down(clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """SigningAlgorithm ES256 -> RS256: the RS256 keys already sign; the ES256 ones are published until they expire."""
    first = rotate()
    es_current = next(k for k in own(first.keys) if k.state == CURRENT)
    es_next = next(k for k in own(first.keys) if k.state == NEXT)
    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "RS256")
    caches.reset()
    report = rotate()
    assert states() == {es_current.kid: PREVIOUS, es_next.kid: RETIRED}
    assert report.retired == [es_next.kid] and secret_deleted(es_next.secret_id)
    assert report.created == []  # the RS256 lifecycle was there already


def test_the_deploy_of_an_upgraded_es256_stack_creates_its_rs256_key_as_next(clock: ManualClock) -> None:
    """The custom resource's Update runs ensure_keys: a stack with ES256 keys only gains a published RS256 key."""
    from authgate.tokens.rotation import create_key

    store = KeyStore()
    _, ring = create_key(store, CURRENT, START, activates_at=START, alg="ES256")
    create_key(store, NEXT, START, activates_at=START + LEAD, ring=ring, alg="ES256")
    ensure_keys()
    assert list(states(alg="RS256").values()) == [NEXT]
    made = states(alg="RS256")
    ensure_keys()  # nothing more while it waits for its lead
    assert states(alg="RS256") == made
