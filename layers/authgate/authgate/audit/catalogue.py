"""The catalogue of audit actions (catalogue.json): each action's name, the kind of thing it acts on
and what it means, in one place (docs/audit.md lists it; `Action` in actions.py is its type)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from authgate.caches import cached

PATH = Path(__file__).with_name("catalogue.json")


class Entry(NamedTuple):
    action: str
    target: str
    meaning: str


@cached
def catalogue() -> dict[str, Entry]:
    """Every action, by name, in the catalogue's order (read on the first recorded event)."""
    entries = json.loads(PATH.read_text("utf-8"))["actions"]
    return {e["action"]: Entry(e["action"], e["target"], e["meaning"]) for e in entries}
