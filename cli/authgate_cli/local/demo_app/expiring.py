"""What the demo app holds in memory for a while: started sign-ins, tokens, an agent's requests."""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Generic, TypeVar

# How long a started sign-in may take before its state is forgotten (the login form lasts 10 min); tokens
# and an agent's requests are held as long.
PENDING_SECONDS = 600

T = TypeVar("T")


@dataclass
class Expiring(Generic[T]):
    """Values under random or given keys, each forgotten PENDING_SECONDS after it was put (shared by threads)."""

    _items: dict[str, tuple[T, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def put(self, value: T, key: str = "") -> str:
        """Hold `value` under `key` (a new random handle when none is given); the key."""
        key = key or secrets.token_urlsafe(16)
        with self._lock:
            now = time.monotonic()
            self._items = {k: v for k, v in self._items.items() if v[1] > now}
            self._items[key] = (value, now + PENDING_SECONDS)
        return key

    def get(self, key: str) -> T | None:
        with self._lock:
            held = self._items.get(key)
        return held[0] if held is not None and held[1] >= time.monotonic() else None

    def pop(self, key: str) -> T | None:
        with self._lock:
            held = self._items.pop(key, None)
        return held[0] if held is not None and held[1] >= time.monotonic() else None
