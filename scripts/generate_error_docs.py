#!/usr/bin/env python3
"""Write docs/errors.md from layers/authgate/authgate/errors/catalogue.json (run after adding a code)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "authgate"))

from authgate_cli.docs.errors import render_markdown

if __name__ == "__main__":
    target = ROOT / "docs" / "errors.md"
    target.write_text(render_markdown(), encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")
