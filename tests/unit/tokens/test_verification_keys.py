"""tokens.verification_keys: published keys by kid, reloaded by age or for an unknown kid at most every 10 s."""

from __future__ import annotations

import json

from cryptography.hazmat.primitives.asymmetric import ec

from authgate.stores.signing_keys import CURRENT, PREVIOUS, KeyRecord
from authgate.tokens import jwk
from authgate.tokens.verification_keys import KeyCache

NOW = 1_750_000_000


def record(kid: str, state: str = CURRENT, alg: str = "ES256", retires_at: int = 0) -> KeyRecord:
    public = jwk.public_jwk(ec.generate_private_key(ec.SECP256R1()).public_key(), kid, "ES256")
    return KeyRecord(kid=kid, state=state, alg=alg, backend="local", public_jwk=json.dumps(public),
                     created_at=NOW - 100, activates_at=NOW - 100, retires_at=retires_at)


class Table:
    """What KeyStore().published() returns, changed by the test between loads."""

    def __init__(self, *records: KeyRecord) -> None:
        self.records = list(records)

    def __call__(self) -> list[KeyRecord]:
        return list(self.records)


def test_a_known_kid_is_served_from_memory_until_max_age() -> None:
    table = Table(record("k1"))
    cache = KeyCache(table, max_age=300)
    key = cache.get("k1", NOW)
    assert key is not None and (key.kid, key.alg, key.retires_at) == ("k1", "ES256", 0)
    assert cache.get("k1", NOW + 299) is key and cache.loads == 1
    table.records = [record("k1")]  # the same kid, reloaded from the table: a new key object
    assert cache.get("k1", NOW + 300) is not key and cache.loads == 2


def test_an_unknown_kid_reloads_at_most_once_per_interval() -> None:
    table = Table(record("k1"))
    cache = KeyCache(table, max_age=300, refresh_interval=10)
    cache.get("k1", NOW)
    for offset in range(10):
        assert cache.get("junk", NOW + offset) is None
    assert cache.loads == 1  # junk kids cannot turn into a read per request
    table.records.append(record("k2"))
    assert cache.get("k2", NOW + 5) is None  # published, but not asked for again yet
    assert cache.get("k2", NOW + 10) is not None and cache.loads == 2


def test_a_previous_key_verifies_nothing_from_its_retirement_even_from_the_cached_list() -> None:
    cache = KeyCache(Table(record("old", PREVIOUS, retires_at=NOW + 60), record("new")), max_age=300)
    assert cache.get("old", NOW + 59) is not None
    assert cache.get("old", NOW + 60) is None
    assert cache.loads == 1


def test_only_the_algorithms_this_server_signs_with_are_loaded() -> None:
    cache = KeyCache(Table(record("hmac", alg="HS256"), record("k1")), max_age=300)
    assert cache.get("hmac", NOW) is None and cache.get("k1", NOW) is not None


def test_a_clock_set_back_reloads_rather_than_trusting_the_future() -> None:
    table = Table(record("k1"))
    cache = KeyCache(table, max_age=300)
    cache.get("k1", NOW)
    cache.get("k1", NOW - 1)
    assert cache.loads == 2
