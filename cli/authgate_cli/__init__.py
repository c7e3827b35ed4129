"""authgate's tools: the `authgate` command (local stack, admin, contract checker) and builders.

Nothing here ships to Lambda: the runtime is the `authgate` package (layers/authgate), which
never imports this one.
"""

from __future__ import annotations

from importlib import metadata


def version(distribution: str = "authgate-cli") -> str:
    """The installed version of `distribution` ("unknown" when run from a bare checkout)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


def version_line() -> str:
    """What `authgate --version` prints: the command's version, the runtime's, and Python's."""
    import platform

    return (f"authgate-cli {version()} (runtime authgate {version('authgate')}, "
            f"Python {platform.python_version()})")
