"""Every process-wide cache of a warm function, bounded, and forgotten at once by `reset()`.

Two shapes, one registry: `@cached` memoises a factory or a pure function (settings, AWS
clients, digests: `functools.lru_cache` underneath, `maxsize=1` unless told), and
`BoundedCache` holds keyed answers that expire or are checked before use (verified tokens, DPoP
keys, tenants, clients, browser origins): least recently used out first, optionally each for
`ttl` seconds. Nothing is built at import (cold starts are part of the product). Tests and the
local emulator call `reset()` after changing the environment, so the next request behaves like a
cold container's.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from functools import lru_cache
from typing import Any, Generic, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_FUNCTIONS: list[Any] = []
# Weak: a BoundedCache lives as long as its owner (a validator built per test is collected).
_MAPPINGS: weakref.WeakSet[BoundedCache[Any, Any]] = weakref.WeakSet()


@overload
def cached(fn: F) -> F: ...
@overload
def cached(*, maxsize: int) -> Callable[[F], F]: ...
def cached(fn: F | None = None, *, maxsize: int = 1) -> F | Callable[[F], F]:
    """`lru_cache(maxsize)` that `reset()` clears: `@cached` for one value per process, `@cached(maxsize=N)`."""

    def wrap(fn: F) -> F:
        wrapped = lru_cache(maxsize=maxsize)(fn)
        _FUNCTIONS.append(wrapped)
        return wrapped  # type: ignore[return-value]

    return wrap(fn) if fn is not None else wrap


class BoundedCache(Generic[K, V]):
    """At most `maxsize` entries, least recently used out first; each for `ttl` seconds when given.

    Lock-free: each OrderedDict operation is atomic under the GIL, and a lost race costs one more
    miss, never a wrong answer. `None` is "not cached": wrap a value that may be None in a tuple.
    `peek` (caches without a ttl) is the hot path's lookup: the dict's own `get`, no Python call,
    and a hit keeps its place (docs/decisions.md, measured shortcuts).
    """

    __slots__ = ("__weakref__", "_entries", "maxsize", "peek", "ttl")

    def __init__(self, maxsize: int, ttl: float | None = None) -> None:
        self.maxsize = maxsize
        self.ttl = ttl
        # Values as given without a ttl; (stored at, value) with one.
        self._entries: OrderedDict[K, Any] = OrderedDict()
        self.peek: Callable[[K], V | None] = self._entries.get if ttl is None else self._no_peek
        _MAPPINGS.add(self)

    def get(self, key: K, now: float = 0.0) -> V | None:
        """The value of `key`, or None when absent or older than `ttl` at `now`; a hit becomes the most recent."""
        entries = self._entries
        entry = entries.get(key)
        if entry is None:
            return None
        if self.ttl is not None:
            if not 0 <= now - entry[0] < self.ttl:
                entries.pop(key, None)
                return None
            entry = entry[1]
        try:
            entries.move_to_end(key)
        except KeyError:  # another thread evicted it meanwhile
            pass
        value: V = entry
        return value

    def put(self, key: K, value: V, now: float = 0.0) -> None:
        """Remember `value` for `key` (as of `now` when there is a `ttl`), evicting the least recently used."""
        entries = self._entries
        entries.pop(key, None)
        entries[key] = value if self.ttl is None else (now, value)
        while len(entries) > self.maxsize:
            try:
                entries.popitem(last=False)
            except KeyError:
                break

    def _no_peek(self, key: K) -> V | None:
        raise TypeError("BoundedCache.peek needs a cache without a ttl; use get(key, now)")

    def pop(self, key: K) -> None:
        """Forget `key`."""
        self._entries.pop(key, None)

    def clear(self) -> None:
        """Forget everything."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first."""
        return iter(list(self._entries))


def reset() -> None:
    """Forget every registered cache: the next use builds it again from the current environment."""
    for fn in _FUNCTIONS:
        fn.cache_clear()
    for mapping in list(_MAPPINGS):
        mapping.clear()
