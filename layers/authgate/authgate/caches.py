"""The cache-and-reset registry: every process-wide cache of a warm function, forgotten at once.

Settings, AWS clients, stores' warm caches (tenants, clients' error formats), key caches and the
signer are built on first use by a factory decorated with `@cached`, never at import (cold
starts are part of the product). `reset()` forgets them all: tests and the local emulator call
it after changing the environment, so the next request behaves like a cold container's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_REGISTRY: list[Any] = []


def cached(fn: F) -> F:
    """`lru_cache(maxsize=1)` that `reset()` clears: one value per process (or per argument set)."""
    wrapped = lru_cache(maxsize=1)(fn)
    _REGISTRY.append(wrapped)
    return wrapped  # type: ignore[return-value]


def reset() -> None:
    """Forget every registered cache: the next use builds it again from the current environment."""
    for fn in _REGISTRY:
        fn.cache_clear()
