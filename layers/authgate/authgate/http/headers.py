"""Case-insensitive, multi-value HTTP headers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping


class Headers:
    """Request headers: names case-insensitive, every value kept (API Gateway multiValueHeaders)."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        self._items: dict[str, list[str]] = {}
        for name, value in items:
            self._items.setdefault(name.lower(), []).append(value)

    @classmethod
    def from_event(cls, single: Mapping[str, str] | None, multi: Mapping[str, list[str]] | None) -> Headers:
        if multi:
            return cls((k, v) for k, values in multi.items() for v in (values or []))
        return cls((k, v) for k, v in (single or {}).items() if v is not None)

    def get(self, name: str, default: str | None = None) -> str | None:
        values = self._items.get(name.lower())
        return values[0] if values else default

    def get_all(self, name: str) -> list[str]:
        return list(self._items.get(name.lower(), []))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def items(self) -> Iterator[tuple[str, str]]:
        for name, values in self._items.items():
            for value in values:
                yield name, value
