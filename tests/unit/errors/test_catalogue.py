"""The published catalogue: codes never disappear or change status; docs/errors.md stays generated."""

from __future__ import annotations

import json
import re
from pathlib import Path

from authgate.errors.catalogue import catalogue
from authgate_cli.docs.errors import render_markdown

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = json.loads((Path(__file__).parent / "published_codes.json").read_text("utf-8"))["codes"]


def test_no_published_code_disappears_or_changes_status():
    current = {code: info.status for code, info in catalogue().items()}
    changed = {code: (status, current.get(code)) for code, status in PUBLISHED.items() if current.get(code) != status}
    assert changed == {}, f"published codes removed or re-statused (published, now): {changed}"


def test_every_code_is_well_formed():
    for code, info in catalogue().items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", code), code
        assert 400 <= info.status <= 599, code
        assert info.title and info.meaning and info.title[0].isupper(), code


def test_docs_are_generated_from_the_catalogue():
    committed = (ROOT / "docs" / "errors.md").read_text("utf-8")
    assert committed == render_markdown(), "docs/errors.md is stale: run scripts/generate_error_docs.py"
