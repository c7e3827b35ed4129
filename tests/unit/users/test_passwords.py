"""authgate.users.passwords: scrypt hashes with their cost and salt; malformed hashes never match."""

from __future__ import annotations

import pytest

from authgate.users.passwords import check_password, dummy_hash, hash_password


def test_a_hash_checks_only_its_password() -> None:
    encoded = hash_password("correct horse", n=2**10)
    assert encoded.startswith("scrypt$1024$8$1$")
    assert check_password("correct horse", encoded)
    assert not check_password("wrong horse", encoded)


@pytest.mark.parametrize("encoded", ["", "scrypt$x", "bcrypt$1024$8$1$AAAA$AAAA", "scrypt$1024$8$1$!!$!!"])
def test_malformed_hashes_never_match(encoded: str) -> None:
    assert not check_password("pw", encoded)


def test_the_dummy_hash_is_made_once() -> None:
    assert dummy_hash() is dummy_hash()
    assert dummy_hash().startswith("scrypt$")


@pytest.mark.slow
def test_the_dummy_hash_costs_no_scrypt_to_make_and_one_to_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first unknown user of a warm container costs what every other sign-in costs: one scrypt."""
    import hashlib

    from authgate import caches
    from authgate.users.passwords import SCRYPT_N, SCRYPT_P, SCRYPT_R, needs_rehash

    real, calls = hashlib.scrypt, []
    monkeypatch.setattr(hashlib, "scrypt", lambda *a, **k: calls.append(k["n"]) or real(*a, **k))
    caches.reset()
    assert not check_password("anything", dummy_hash())
    assert calls == [SCRYPT_N] and not needs_rehash(dummy_hash())
    assert dummy_hash().split("$")[1:4] == [str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P)]
