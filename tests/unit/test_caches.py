"""authgate.caches: bounded, least recently used out first, expiring, and all forgotten by reset()."""

from __future__ import annotations

import gc

from authgate import caches
from authgate.caches import BoundedCache, cached


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recently used
    cache.put("c", 3)
    assert (cache.get("b"), list(cache), len(cache)) == (None, ["a", "c"], 2)


def test_putting_a_key_again_replaces_its_value_and_refreshes_it() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert (list(cache), cache.get("a")) == (["a", "c"], 10)


def test_an_entry_expires_after_its_ttl_and_never_before() -> None:
    cache: BoundedCache[str, bool] = BoundedCache(8, ttl=60)
    cache.put("https://app.example", False, now=1000.0)
    assert cache.get("https://app.example", now=1059.9) is False
    assert cache.get("https://app.example", now=1060.0) is None
    assert len(cache) == 0  # an expired entry is dropped, not kept


def test_an_entry_from_the_future_is_not_trusted() -> None:
    # A clock set back (a test's ManualClock, an NTP step) must not make an entry live forever.
    cache: BoundedCache[str, int] = BoundedCache(8, ttl=60)
    cache.put("k", 1, now=1000.0)
    assert cache.get("k", now=999.0) is None


def test_pop_and_clear_forget() -> None:
    cache: BoundedCache[str, int] = BoundedCache(8)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.pop("a")
    cache.pop("missing")
    assert list(cache) == ["b"]
    cache.clear()
    assert list(cache) == []


def test_reset_forgets_every_registered_cache() -> None:
    calls: list[int] = []

    @cached
    def factory() -> int:
        calls.append(1)
        return len(calls)

    @cached(maxsize=4)
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    mapping: BoundedCache[str, int] = BoundedCache(4)
    mapping.put("a", 1)
    assert (factory(), factory(), square(3), square(3)) == (1, 1, 9, 9)
    assert len(calls) == 2
    caches.reset()
    assert (mapping.get("a"), factory(), square(3)) == (None, 3, 9)
    assert len(calls) == 4


def test_a_cache_is_bounded_by_maxsize() -> None:
    @cached(maxsize=2)
    def ident(n: int) -> int:
        return n

    for n in range(5):
        ident(n)
    assert ident.cache_info().currsize == 2  # type: ignore[attr-defined]


def test_the_registry_does_not_keep_a_dropped_cache_alive() -> None:
    import weakref

    cache: BoundedCache[str, int] = BoundedCache(4)
    ref = weakref.ref(cache)
    assert cache in caches._MAPPINGS
    del cache
    gc.collect()
    assert ref() is None


def test_peek_is_a_lookup_that_keeps_the_entrys_place() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert (cache.peek("a"), cache.peek("missing")) == (1, None)
    cache.put("c", 3)  # "a" was only peeked at: it is still the oldest
    assert list(cache) == ["b", "c"]


def test_peek_is_refused_on_a_cache_with_a_ttl() -> None:
    import pytest

    with pytest.raises(TypeError):
        BoundedCache(2, ttl=60).peek("a")
