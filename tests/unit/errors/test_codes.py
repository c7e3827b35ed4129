"""authgate.errors.codes: the `Code` type is generated from the catalogue and kept up to date."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from authgate.errors import catalogue
from authgate.errors.codes import Code

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("generate_error_codes", ROOT / "scripts" / "generate_error_codes.py")
assert _spec is not None and _spec.loader is not None
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)


def test_the_checked_in_module_is_what_the_script_writes() -> None:
    assert generator.TARGET.read_text("utf-8") == generator.render(), (
        "errors/codes.py is stale: run python scripts/generate_error_codes.py")


def test_the_type_names_exactly_the_published_codes_in_catalogue_order() -> None:
    assert list(typing.get_args(Code)) == list(catalogue.catalogue())


def test_a_new_code_changes_the_output(tmp_path: Path) -> None:
    """The check above can fail: a catalogue with one more code renders differently."""
    raw = json.loads(Path(catalogue.CATALOGUE_PATH).read_text("utf-8"))
    raw["codes"].append({"code": "brand_new", "status": 400, "title": "New", "meaning": "A new code."})
    grown = tmp_path / "catalogue.json"
    grown.write_text(json.dumps(raw), "utf-8")
    assert '"brand_new",' in generator.render(grown) and generator.render(grown) != generator.render()


@pytest.mark.slow
def test_a_misspelt_code_fails_the_type_check(tmp_path: Path) -> None:
    """mypy (make typecheck) rejects an ApiError whose code is not in the catalogue."""
    probe = tmp_path / "probe.py"
    probe.write_text('from authgate.errors import ApiError\n\nApiError("not_foud", "typo")\nApiError("not_found")\n')
    # MYPYPATH: mypy does not follow the editable install's import hook.
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(probe)],
                         capture_output=True, text=True, cwd=ROOT, check=False,
                         env={**os.environ, "MYPYPATH": str(ROOT / "layers" / "authgate")})
    assert run.returncode == 1, run.stdout
    assert f'{probe}:3: error: Argument 1 to "ApiError" has incompatible type "Literal[\'not_foud\']"' in run.stdout
    assert ":4:" not in run.stdout
