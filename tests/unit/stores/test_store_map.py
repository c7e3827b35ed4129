"""docs/architecture.md "Stores" says truthfully how the modules of stores/ map to the template's tables."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import Counter
from pathlib import Path

import authgate.stores
from authgate.settings.tables import Tables
from authgate.stores.base import TableStore

ROOT = Path(__file__).resolve().parents[3]


def test_the_architecture_counts_the_store_modules_the_stores_and_the_tables() -> None:
    modules = [m.name for m in pkgutil.iter_modules(authgate.stores.__path__)]
    per_table: Counter[str] = Counter()
    for name in modules:
        module = importlib.import_module(f"authgate.stores.{name}")
        for cls in vars(module).values():
            if inspect.isclass(cls) and issubclass(cls, TableStore) and cls.__module__ == module.__name__ \
                    and getattr(cls, "table_setting", ""):
                per_table[cls.table_setting] += 1
    assert set(per_table) == set(Tables._fields)  # every table has a store, every store a table of the template
    text = " ".join((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split())
    stated = re.search(r"(\d+) modules of `stores/` serve (\d+) tables\. (\d+) are stores, each on one table", text)
    assert stated is not None
    assert tuple(int(g) for g in stated.groups()) == (len(modules), len(Tables._fields), sum(per_table.values()))
    assert (per_table["codes"], per_table["users"], per_table["clients"], per_table["charges"],
            per_table["tenants"], per_table["sessions"], per_table["keys"]) == (6, 5, 2, 2, 2, 2, 2)
    assert sum(1 for count in per_table.values() if count == 1) == 12
