"""users.sealed_secrets: AES-GCM under a key derived from the session secret, bound to its owner."""

from __future__ import annotations

import pytest

from authgate.users.sealed_secrets import SecretUnreadable, factor_key, seal, unseal

KEY = factor_key(b"test-session-secret-0123456789abcdef")


def test_a_sealed_secret_opens_for_its_owner_only() -> None:
    sealed = seal(KEY, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "demo", "bob")
    assert sealed.startswith("v1.") and "GEZDGNBV" not in sealed
    assert unseal(KEY, sealed, "demo", "bob") == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert seal(KEY, "x", "demo", "bob") != seal(KEY, "x", "demo", "bob")  # a fresh nonce each time
    for owner in (("demo", "alice"), ("acme", "bob")):
        with pytest.raises(SecretUnreadable):
            unseal(KEY, sealed, *owner)
    other = factor_key(b"another-session-secret-0123456789abc")
    for key, value in ((other, sealed), (KEY, sealed[:-2] + "AA"), (KEY, "GEZDGNBV"), (KEY, "v1.!!")):
        with pytest.raises(SecretUnreadable):
            unseal(key, value, "demo", "bob")


def test_the_key_is_not_the_session_secret() -> None:
    assert len(KEY) == 32 and KEY != b"test-session-secret-0123456789abcdef"[:32]
