"""The test suite's own layout: helpers live in support modules and conftest.py, never in test modules.

A test module that imports another runs the other's module code (and, for pytest, may collect its
fixtures twice), and a newcomer cannot tell a helper from a test by the file it is in. Shared
helpers go to a support module named after what it holds (tests/functional/token_support.py,
tests/bearer_requests.py, ...) or to a conftest.py fixture (CONTRIBUTING.md, "Tests").
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def python_files() -> list[Path]:
    """The suite's Python files (not the Node packages the browser tests install under tests/e2e/js)."""
    found = []
    for folder, subfolders, files in os.walk(TESTS):
        subfolders[:] = [name for name in subfolders if name not in ("node_modules", "__pycache__", "corpus")]
        found += [Path(folder) / name for name in files if name.endswith(".py")]
    return sorted(found)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


# An import statement on its own line(s), at any indentation (a parenthesised list may span lines).
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[.\w]+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)", re.MULTILINE)


def imported_modules(source: str, module: str) -> set[str]:
    """Every module the code of `module` imports (relative imports resolved), with `from M import x` also as M.x.

    Only the import statements are parsed (parsing whole files was most of this test's time)."""
    package = module.rsplit(".", 1)[0]
    found: set[str] = set()
    statements = "\n".join(match.group(0).strip() for match in _IMPORT.finditer(source))
    for node in ast.parse(statements, module).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def is_test_module(name: str) -> bool:
    return name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")


def test_no_module_of_the_suite_imports_a_test_module() -> None:
    files = python_files()
    test_modules = {module_name(p) for p in files if p.name.startswith("test_")}
    offenders = sorted(f"{path.relative_to(ROOT)} imports {name}"
                       for path in files
                       for name in imported_modules(path.read_text(encoding="utf-8"), module_name(path))
                       if is_test_module(name) and name in test_modules)
    assert offenders == [], "move the helper to a support module or a conftest.py fixture:\n" + "\n".join(offenders)


def test_the_check_sees_every_form_of_import() -> None:
    """What a module could write to reach a test module, resolved as the check above resolves it."""
    source = ("import tests.functional.test_a\nfrom tests.functional.test_b import helper\n"
              "from tests.functional import test_c\nfrom .test_d import helper\nfrom . import test_e\n"
              "from tests.functional.token_support import basic\n")
    names = imported_modules(source, "tests.functional.sample")
    assert {n for n in names if is_test_module(n)} == {
        "tests.functional.test_a", "tests.functional.test_b", "tests.functional.test_c", "tests.functional.test_d",
        "tests.functional.test_e"}


def test_test_files_are_named_after_their_subject() -> None:
    """Named after what they test (the module, the endpoint, the behaviour), never the review that found them."""
    named_after_a_review = sorted(str(p.relative_to(ROOT)) for p in python_files() if "review" in p.name)
    assert named_after_a_review == []
