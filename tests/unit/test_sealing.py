"""authgate.sealing: one rule for every secret at rest (AES-256-GCM, a key per kind, bound to its owner)."""

from __future__ import annotations

import pytest

from authgate import sealing
from authgate.users.sealed_secrets import factor_key

ROOT = b"x" * 32
# Sealed by the factor secrets' code before it was built on authgate.sealing: what deployments hold still opens.
FACTOR_SEALED_BEFORE = "v1.5mvWL5dMuDXEXp79fNInWW7-9gNyEdsxJIOgzJpdAanJhqCCPyCQ602xgY4"


def test_a_value_sealed_before_the_rule_was_shared_still_opens() -> None:
    assert sealing.unseal(factor_key(ROOT), FACTOR_SEALED_BEFORE, ("demo", "bob")) == "GEZDGNBVGY3TQOJQ"


def test_each_label_is_its_own_key_and_each_owner_its_own_binding() -> None:
    one, two = sealing.derive(ROOT, b"one"), sealing.derive(ROOT, b"two")
    assert one != two and len(one) == 32
    sealed = sealing.seal(one, "s3cret-value", ("t", "https://idp.example", "client_secret"))
    assert sealed.startswith("v1.") and "s3cret" not in sealed
    assert sealing.unseal(one, sealed, ("t", "https://idp.example", "client_secret")) == "s3cret-value"
    for key, owner in ((two, ("t", "https://idp.example", "client_secret")),
                       (one, ("t", "https://idp.example", "apple_private_key")),
                       (one, ("u", "https://idp.example", "client_secret"))):
        with pytest.raises(sealing.SecretUnreadable):
            sealing.unseal(key, sealed, owner)
