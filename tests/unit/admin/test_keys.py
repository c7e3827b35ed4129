"""`authgate keys rotate | list` output against moto's AWS."""

from __future__ import annotations

import io
import json

from authgate.clock import ManualClock
from authgate_cli.admin.keys import list_keys, rotate_keys


def test_rotate_bootstraps_then_explains_why_the_next_key_waits(aws: None, clock: ManualClock) -> None:
    assert clock.value == 1_750_000_000
    out = io.StringIO()
    assert rotate_keys(out) == 0
    text = out.getvalue()
    assert text.count("created ") == 2  # bootstrap: a current key and a next key
    out = io.StringIO()
    rotate_keys(out)
    assert "may not sign before 2025-06-15T15:13:40Z" in out.getvalue()
    clock.advance(420)
    out = io.StringIO()
    rotate_keys(out, as_json=True)
    report = json.loads(out.getvalue())
    assert report["promoted"] and report["demoted"] and len(report["created"]) == 1
    out = io.StringIO()
    list_keys(out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["KID", "STATE", "ALG", "BACKEND", "SIGNS", "FROM", "UNPUBLISHED", "FROM"]
    assert sorted(line.split()[1] for line in lines[1:]) == ["current", "next", "previous"]
