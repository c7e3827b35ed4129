#!/usr/bin/env python3
"""Write layers/authgate/authgate/errors/codes.py (the `Code` type) from errors/catalogue.json.

Run after adding a code to the catalogue (with scripts/generate_error_docs.py). The output is
checked in; tests/unit/errors/test_codes.py fails when it is not what this script writes, and
mypy then rejects any ApiError whose code is not in the catalogue.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ERRORS = ROOT / "layers" / "authgate" / "authgate" / "errors"
CATALOGUE = ERRORS / "catalogue.json"
TARGET = ERRORS / "codes.py"


def render(catalogue_path: Path = CATALOGUE) -> str:
    """The text of codes.py for the catalogue at `catalogue_path`."""
    codes = [entry["code"] for entry in json.loads(catalogue_path.read_text("utf-8"))["codes"]]
    members = "".join(f'    "{code}",\n' for code in codes)
    return (
        '"""Every published application error code, as a type (GENERATED: do not edit).\n'
        "\n"
        "Written by scripts/generate_error_codes.py from catalogue.json; a code that is not in the\n"
        "catalogue fails the type check wherever an ApiError is raised with it.\n"
        '"""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from typing import Literal\n"
        "\n"
        f"Code = Literal[\n{members}]\n"
    )


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}", file=sys.stderr)
