"""Process-wide cached dependencies (stores, signers, key caches), built on first use.

A module that keeps a warm-invocation cache decorates its factory with `@cached`; tests and
the local emulator call `reset()` to forget them all. Nothing is built at import time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_REGISTRY: list[Any] = []


def cached(fn: F) -> F:
    """lru_cache(maxsize=1) that `reset()` clears."""
    wrapped = lru_cache(maxsize=1)(fn)
    _REGISTRY.append(wrapped)
    return wrapped  # type: ignore[return-value]


def reset() -> None:
    for fn in _REGISTRY:
        fn.cache_clear()
