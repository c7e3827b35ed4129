"""SamlSpKeyStore: KeysTable's "#saml-sp" item -- written only over the version read, and never taken for a token key."""

from __future__ import annotations

import pytest

from authgate.stores.exceptions import ConcurrentUpdate
from authgate.stores.saml_sp_keys import SamlSpKeyStore, SpKeys, StoredKey
from authgate.stores.signing_keys import KeyStore
from authgate.tokens.rotation import rotate

pytestmark = pytest.mark.usefixtures("aws")
KEY = StoredKey("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "v1.sealed", 1_750_000_000)


def test_keys_are_written_over_the_version_read_and_a_stale_write_is_refused() -> None:
    store = SamlSpKeyStore()
    empty = store.read()
    assert empty == SpKeys((), 0)
    written = store.write((KEY,), empty)
    assert store.read() == written == SpKeys((KEY,), 1)
    with pytest.raises(ConcurrentUpdate) as caught:
        store.write((), empty)  # planned on "no item": another write came first
    assert str(caught.value) == "the SAML signing keys changed meanwhile: run it again"
    store.write((), written)
    with pytest.raises(ConcurrentUpdate):
        store.write((KEY,), written)
    assert store.read() == SpKeys((), 2)


def test_the_token_keys_never_include_it() -> None:
    SamlSpKeyStore().write((KEY,), SpKeys())
    assert (KeyStore().all(), KeyStore().published()) == ([], [])  # a table without the published set yet: a Scan
    rotate(now=1_750_000_000)
    assert "#saml-sp" not in {k.kid for k in KeyStore().all()} and len(KeyStore().all()) == 2
