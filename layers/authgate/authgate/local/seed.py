"""Seed data for a local stack (PRODUCT.md demo seed). STUB: issue 4 implements the format.

`load_seed(path)` writes tenants, clients, users (and invoices, API keys) through the stores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_SEED = Path(__file__).with_name("demo_seed.json")


def load_seed(path: Path = DEMO_SEED) -> dict[str, Any]:
    """Load a seed file into the tables; returns a summary for the start-up banner."""
    return {}
