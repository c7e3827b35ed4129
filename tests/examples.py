"""The MCP example (examples/mcp, docs/mcp.md): its modules imported from there for in-process tests,
and its own environment (`make mcp-example`: examples/mcp/.venv) for the processes that run it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mcp"
VENV_BIN = EXAMPLE / ".venv" / "bin"


def module(name: str) -> ModuleType:
    """examples/mcp/NAME.py (the example is no package of this repository; it is imported by path)."""
    qualified = f"examples_mcp_{name}"
    if qualified not in sys.modules:
        spec = importlib.util.spec_from_file_location(qualified, EXAMPLE / f"{name}.py")
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = loaded
        spec.loader.exec_module(loaded)
    return sys.modules[qualified]


def program(name: str) -> Path:
    """A command of the example's own environment (its few dependencies, none of the dev tools')."""
    path = VENV_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make mcp-example` (the example's own environment)")
    return path
