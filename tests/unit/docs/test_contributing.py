"""CONTRIBUTING.md stays true: every path it names exists, and the quick loop it promises is the Makefile's."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CONTRIBUTING = ROOT / "CONTRIBUTING.md"

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"[A-Za-z_][\w.-]*(/[\w.<>{}*-]*)+|[\w-]+\.(py|md|json|yaml|toml)|Makefile")
# Where a named path may start: the repository, the runtime package, the command's package
# (`stores/base.py` is the runtime's, `admin/target.py` the command's).
BASES = (ROOT, ROOT / "layers" / "authgate" / "authgate", ROOT / "cli" / "authgate_cli")


def named_paths(markdown: str) -> list[str]:
    """Code spans that name a file or folder, cut before any placeholder (`functions/<name>/app.py`
    names `functions/`)."""
    return [re.split(r"[<{*]", span, maxsplit=1)[0] for span in _CODE_SPAN.findall(markdown)
            if _PATH.fullmatch(span)]


def missing(paths: list[str]) -> list[str]:
    return [path for path in paths if not any((base / path).exists() for base in BASES)]


def test_every_path_contributing_names_exists() -> None:
    named = named_paths(CONTRIBUTING.read_text("utf-8"))
    assert len(named) > 20
    assert missing(named) == []


def test_a_path_that_does_not_exist_is_found() -> None:
    text = ("`layers/authgate/authgate/settings/model.py`, `tests/no_such_support.py`, `functions/<name>/app.py`, "
            "`stores/base.py`, `admin/gone.py`, `make test`, `-m \"not slow\"`, `Cache-Control: no-store`")
    named = named_paths(text)
    assert named == ["layers/authgate/authgate/settings/model.py", "tests/no_such_support.py", "functions/", "stores/base.py",
                     "admin/gone.py"]
    assert missing(named) == ["tests/no_such_support.py", "admin/gone.py"]


def test_the_quick_loop_is_the_makefiles_and_the_readme_names_it() -> None:
    makefile = (ROOT / "Makefile").read_text("utf-8")
    recipe = makefile.split("\ntest-fast:", 1)[1].split("\n\n", 1)[0]
    assert '-m "not slow"' in recipe and "tests/unit tests/functional" in recipe
    for page in (CONTRIBUTING, ROOT / "README.md"):
        assert "make test-fast" in page.read_text("utf-8"), page.name


def test_the_commit_rule_is_stated() -> None:
    text = CONTRIBUTING.read_text("utf-8")
    assert "at most 72 characters" in text and "blank line" in text
