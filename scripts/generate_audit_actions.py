#!/usr/bin/env python3
"""Write layers/authgate/authgate/audit/actions.py (the `Action` type) and the catalogue's table in
docs/audit.md from audit/catalogue.json.

Run after adding an action to the catalogue (tests/unit/audit/ fail while either is stale). mypy
then rejects any `audit.record` of an action the catalogue lacks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUDIT = ROOT / "layers" / "authgate" / "authgate" / "audit"
CATALOGUE = AUDIT / "catalogue.json"
TARGET = AUDIT / "actions.py"
DOC = ROOT / "docs" / "audit.md"
BEGIN = "<!-- BEGIN actions: written by scripts/generate_audit_actions.py from the catalogue -->"
END = "<!-- END actions -->"


def render(catalogue_path: Path = CATALOGUE) -> str:
    """The text of actions.py for the catalogue at `catalogue_path`."""
    actions = [entry["action"] for entry in json.loads(catalogue_path.read_text("utf-8"))["actions"]]
    members = "".join(f'    "{action}",\n' for action in actions)
    return (
        '"""Every audit action, as a type (GENERATED: do not edit).\n'
        "\n"
        "Written by scripts/generate_audit_actions.py from catalogue.json; an action that is not in the\n"
        "catalogue fails the type check wherever an event is recorded with it.\n"
        '"""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from typing import Literal\n"
        "\n"
        f"Action = Literal[\n{members}]\n"
    )


def render_table(catalogue_path: Path = CATALOGUE) -> str:
    """The catalogue as the Markdown table of docs/audit.md."""
    rows = ["| Action | Target | What it records |", "|---|---|---|"]
    rows += [f"| `{e['action']}` | {e['target']} | {e['meaning']} |"
             for e in json.loads(catalogue_path.read_text("utf-8"))["actions"]]
    return "\n".join(rows) + "\n"


def render_doc(text: str, catalogue_path: Path = CATALOGUE) -> str:
    """`text` (docs/audit.md) with the table between its markers rewritten."""
    head, _, rest = text.partition(BEGIN + "\n")
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{render_table(catalogue_path)}{END}{tail}"


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    DOC.write_text(render_doc(DOC.read_text("utf-8")), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} and {DOC.relative_to(ROOT)}", file=sys.stderr)
