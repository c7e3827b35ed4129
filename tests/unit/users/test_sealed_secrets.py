"""users.sealed_secrets: AES-GCM under a key derived from the session secret, bound to its owner."""

from __future__ import annotations

import pytest

from authgate.users.sealed_secrets import SecretUnreadable, factor_key, opened, seal, unseal

KEY = factor_key(b"test-sealing-key-0123456789abcdefgh")


def test_a_sealed_secret_opens_for_its_owner_only() -> None:
    sealed = seal(KEY, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "demo", "bob")
    assert sealed.startswith("v1.") and "GEZDGNBV" not in sealed
    assert unseal(KEY, sealed, "demo", "bob") == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert seal(KEY, "x", "demo", "bob") != seal(KEY, "x", "demo", "bob")  # a fresh nonce each time
    for owner in (("demo", "alice"), ("acme", "bob")):
        with pytest.raises(SecretUnreadable):
            unseal(KEY, sealed, *owner)
    other = factor_key(b"another-sealing-key-0123456789abcdef")
    for key, value in ((other, sealed), (KEY, sealed[:-2] + "AA"), (KEY, "GEZDGNBV"), (KEY, "v1.!!")):
        with pytest.raises(SecretUnreadable):
            unseal(key, value, "demo", "bob")


def test_a_factor_that_does_not_open_is_none() -> None:
    sealed = seal(KEY, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "demo", "bob")
    assert opened(KEY, sealed, "demo", "bob") == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert opened(KEY, sealed, "demo", "alice") is None
    assert opened(KEY, "", "demo", "bob") is None
    assert opened(KEY, "v1.!!", "demo", "bob") is None


def test_the_key_is_not_the_sealing_key() -> None:
    assert len(KEY) == 32 and KEY != b"test-sealing-key-0123456789abcdefgh"[:32]
