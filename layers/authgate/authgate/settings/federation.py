"""The settings of sign-in with upstream identity providers (docs/federation.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from authgate.settings.environment import SettingsError

# http://127.0.0.1:PORT or http://localhost:PORT, nothing else.
_LOOPBACK_ORIGIN = re.compile(r"http://(127\.0\.0\.1|localhost):[0-9]{1,5}")


def federation(env: Mapping[str, str], stage: str) -> dict[str, Any]:
    """AUTHGATE_DEMO_UPSTREAM: the origin of the local stack's demo identity provider (`authgate serve` starts it on
    loopback), the one loopback origin the relying party reaches without the local loopback flag. Local only."""
    origin = env.get("AUTHGATE_DEMO_UPSTREAM", "")
    if origin and stage != "local":
        raise SettingsError(f"AUTHGATE_DEMO_UPSTREAM is for the local stack only (AUTHGATE_STAGE=local), not {stage}")
    if origin and not _LOOPBACK_ORIGIN.fullmatch(origin):
        raise SettingsError(f"AUTHGATE_DEMO_UPSTREAM must be http://127.0.0.1:PORT or http://localhost:PORT, "
                            f"got {origin[:100]!r}")
    return {"demo_upstream": origin}
