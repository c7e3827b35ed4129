"""tokens.current_signer: the current key's signer, re-read at most every SIGNER_CACHE_SECONDS (rotation counts on it)."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.stores.exceptions import StorageUnavailable
from authgate.tokens.current_signer import SIGNER_CACHE_SECONDS, current_signer, signing_cache


def test_the_signer_is_kept_for_the_cache_period_then_read_again(keys: None, clock: ManualClock) -> None:
    from authgate.stores.signing_keys import CURRENT, NEXT, PREVIOUS, KeyStore

    first = current_signer()
    store = KeyStore()
    (current,) = [k for k in store.all() if k.state == CURRENT]
    (upcoming,) = [k for k in store.all() if k.state == NEXT]
    store.transition([(current, current.with_state(PREVIOUS)), (upcoming, upcoming.with_state(CURRENT))])
    clock.advance(SIGNER_CACHE_SECONDS - 1)
    assert current_signer() is first  # a warm function keeps signing with the key it read
    clock.advance(1)
    assert (first.kid, current_signer().kid) == (current.kid, upcoming.kid)


def test_no_current_key_is_an_outage_not_a_crash(aws: None, clock: ManualClock) -> None:
    signing_cache().clear()
    with pytest.raises(StorageUnavailable) as info:
        current_signer()
    assert info.value.reason == "no current signing key: run `authgate keys rotate`"
