"""authgate's tools: the `authgate` command (local stack, admin, contract checker) and builders.

Nothing here ships to Lambda: the runtime is the `authgate` package (layers/authgate), which
never imports this one.
"""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    """The installed authgate-cli version ("unknown" when run from a bare checkout)."""
    try:
        return metadata.version("authgate-cli")
    except metadata.PackageNotFoundError:
        return "unknown"
