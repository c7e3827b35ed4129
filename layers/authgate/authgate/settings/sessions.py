"""A sign-in session's lifetimes (authgate.sessions.model, docs/oidc.md), read together: one bounds the other."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authgate.settings.environment import SettingsError, integer
from authgate.settings.model import DEFAULTS


def session_lifetimes(env: Mapping[str, str]) -> dict[str, Any]:
    """A session's absolute lifetime (5 minutes to 30 days) and idle timeout (1 minute to the lifetime)."""
    lifetime = integer(env, "AUTHGATE_SESSION_LIFETIME", DEFAULTS.session_lifetime, 300, 30 * 24 * 3600)
    idle = integer(env, "AUTHGATE_SESSION_IDLE", min(DEFAULTS.session_idle, lifetime), 60, 30 * 24 * 3600)
    if idle > lifetime:
        raise SettingsError(f"AUTHGATE_SESSION_IDLE ({idle}) must not exceed AUTHGATE_SESSION_LIFETIME ({lifetime})")
    return {"session_lifetime": lifetime, "session_idle": idle}
