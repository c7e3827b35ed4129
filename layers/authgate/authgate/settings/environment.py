"""One environment variable read with its bounds: a bad value raises SettingsError naming the variable."""

from __future__ import annotations

from collections.abc import Mapping


class SettingsError(ValueError):
    """A deployment setting is missing or invalid; the message names the variable."""


def integer(env: Mapping[str, str], name: str, default: int, lo: int, hi: int) -> int:
    """An integer in [lo, hi]; `default` when unset or empty."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from None
    if not lo <= value <= hi:
        raise SettingsError(f"{name} must be between {lo} and {hi}, got {value}")
    return value


def boolean(env: Mapping[str, str], name: str, default: bool) -> bool:
    """true/1/yes or false/0/no (any case); `default` when unset or empty."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in {"true", "1", "yes"}:
        return True
    if raw.lower() in {"false", "0", "no"}:
        return False
    raise SettingsError(f"{name} must be true or false, got {raw!r}")


def choice(env: Mapping[str, str], name: str, valid: set[str], default: str) -> str:
    """One of `valid`; `default` when unset or empty."""
    raw = env.get(name) or default
    if raw not in valid:
        raise SettingsError(f"{name} must be one of {sorted(valid)}, got {raw!r}")
    return raw
