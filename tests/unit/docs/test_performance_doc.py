"""docs/performance.md is generated: exactly what bench/performance_doc.py writes from bench/results.json."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from bench.performance_doc import DOCUMENT, holding, render_document, write
from bench.report import RESULTS


def committed_results() -> dict:
    return json.loads(RESULTS.read_text("utf-8"))


def test_committed_page_is_what_the_generator_writes_from_the_committed_results():
    assert DOCUMENT.read_text("utf-8") == render_document(committed_results()), (
        "docs/performance.md is stale: run `python scripts/generate_performance_doc.py` (or `make bench`)")


def test_a_changed_figure_makes_the_committed_page_stale():
    results = copy.deepcopy(committed_results())
    results["cold_init"]["functions"]["token"]["cold_ms"] += 1000
    assert DOCUMENT.read_text("utf-8") != render_document(results)


def test_write_renders_the_results_it_is_given(tmp_path: Path):
    results = copy.deepcopy(committed_results())
    results["operations"]["client_credentials token"]["dynamodb_calls"] = 7
    source, page = tmp_path / "results.json", tmp_path / "performance.md"
    source.write_text(json.dumps(results), "utf-8")
    assert write(source, page) == page
    assert "| client_credentials token | 7 (BatchGetItem x1) |" in page.read_text("utf-8")


def test_the_summary_of_targets_is_read_from_the_results():
    results = copy.deepcopy(committed_results())
    for target in results["targets"]:
        target["holds"] = True
    assert holding(results) == f"All {len(results['targets'])} targets hold in this run."
    results["targets"][0]["holds"] = False
    first = results["targets"][0]
    assert f"- {first['what']}: {first['figure']} (target {first['target']})" in holding(results)


def test_a_quick_run_says_so():
    results = copy.deepcopy(committed_results())
    results["quick"] = True
    assert "written from a quick run" in render_document(results)
    assert "written from a quick run" not in render_document(committed_results())
