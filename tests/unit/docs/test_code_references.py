"""Every code reference in README.md and docs/*.md resolves: the modules, names and files the pages name exist.

Found in code spans: dotted names of the runtime (`authgate.oauth.token.endpoint.post_token`, or
short, relative to the layer: `oauth.clients.lookup`, `stores.faults.aws_faults`) must import
and have the attribute named; repository paths (`layers/authgate/authgate/oauth/pkce.py`,
`oauth/token/dpop_proof.py`, `tests/unit/...py::test_name`) must exist, a test id naming a
function or class of that file. A module moved or renamed without its pages fails here. Each
check is also run on a planted defect, to show it fails.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LAYER = ROOT / "layers" / "authgate" / "authgate"
SHORT_ROOTS = sorted(p.stem for p in LAYER.iterdir() if (p.suffix == ".py" and p.stem != "__init__")
                     or (p / "__init__.py").exists())
_SPAN = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"(?<![\w/.$-])((?:authgate_cli|authgate|" + "|".join(SHORT_ROOTS) + r")(?:\.\w+)+)")
_PATH = re.compile(r"(?<![\w.$/-])((?:[\w.-]+/)+[\w.-]+\.(?:py|md|json|html|css|yaml|toml))(?:::(\w+))?")
# The folders a path of this repository starts with: the repository's, or the layer's own.
OURS = ("layers/", "tests/", "cli/", "functions/", "bench/", "scripts/", "tools/", "docs/", "events/", "examples/",
        *(f"{r}/" for r in SHORT_ROOTS))
# Where a page's relative path is resolved from, first match wins.
_BASES = (ROOT, ROOT / "layers" / "authgate", LAYER, ROOT / "docs", ROOT / "cli")
# Names that are not code of this repository although they look like it: the standard library's,
# and oauth4webapi's in a JavaScript example (fapi2.md).
NOT_OURS = {"http.client", "http.server", "oauth.allowInsecureRequests"}
# The audit trail's actions (`account.locked`, audit.md) are names of events, not of code.
AUDIT_ACTIONS = {e["action"] for e in json.loads((LAYER / "audit" / "catalogue.json").read_text("utf-8"))["actions"]}
# An upper-case part is a placeholder (`openapi.METHOD PATH.no-credentials`, `authgate.check.GROUP`).
_PLACEHOLDER = re.compile(r"\.[A-Z][A-Z_]+(\.|$)")


def _resolves(dotted: str) -> bool:
    """Whether `dotted` is a module of the repository, or an attribute (a NamedTuple field too) of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if hasattr(target, name):
                target = getattr(target, name)
            else:
                # A record's field: of the NamedTuple or dataclass named, or of one of the module's
                # (`settings.leeway`).
                records = [target] + [v for v in vars(target).values() if isinstance(v, type)]
                return any(name in getattr(record, "_fields", ()) or name in getattr(record, "__dataclass_fields__", {})
                           for record in records)
        return True
    return False


def broken_references(pages: list[Path], root: Path = ROOT) -> list[str]:
    """`page: reference` for every code reference of `pages` that does not resolve."""
    broken = []
    for page in pages:
        for span in _SPAN.findall(page.read_text("utf-8")):
            for match in _DOTTED.finditer(span):
                name = match.group(1)
                if (name in NOT_OURS or name in AUDIT_ACTIONS or _PLACEHOLDER.search(name)
                        or name.endswith((".md", ".py", ".json", ".yaml", ".html", ".css"))):
                    continue
                if not _resolves(name if name.startswith("authgate") else f"authgate.{name}"):
                    broken.append(f"{page.name}: {name}")
            for match in _PATH.finditer(span):
                path, test = match.group(1), match.group(2)
                if not path.startswith(OURS):
                    continue  # a URL path or another program's file, not one of ours
                bases = [root / base.relative_to(ROOT) for base in _BASES]
                found = next((base / path for base in bases if (base / path).exists()), None)
                if found is None:
                    broken.append(f"{page.name}: {path}")
                elif test and not re.search(rf"^\s*(?:async )?(?:def|class) {test}\b", found.read_text("utf-8"),
                                            re.MULTILINE):
                    broken.append(f"{page.name}: {path}::{test}")
    return broken


def pages(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def test_every_code_reference_of_the_docs_resolves() -> None:
    assert broken_references(pages()) == []


@pytest.mark.parametrize("reference", [
    "`authgate.oauth.token.endpoint.no_such_step`", "`oauth.no_such_module`", "`stores.faults.dynamodb_faults`",
    "`layers/authgate/authgate/oauth/no_such.py`", "`oauth/token/no_such.py`",
    "`tests/unit/oauth/test_pkce.py::test_no_such_test`",
])
def test_a_planted_broken_reference_fails(tmp_path: Path, reference: str) -> None:
    page = tmp_path / "docs" / "planted.md"
    page.parent.mkdir()
    page.write_text(f"See {reference}.\n")
    assert len(broken_references([page])) == 1


def test_references_that_resolve_and_names_that_are_not_code_pass(tmp_path: Path) -> None:
    page = tmp_path / "docs" / "fine.md"
    page.parent.mkdir()
    page.write_text("`authgate.oauth.token.endpoint.post_token`, `oauth.clients.lookup.ClientLookup`, "
                    "`settings.Settings.leeway`, `settings.leeway`, `openapi.METHOD PATH.wrong-method`, `oauth/pkce.py`, `tests/unit/oauth/test_pkce.py::test_verifier_syntax`, "
                    "`/oauth/token`, `https://as.example/oauth/token`, `examples/mcp/.venv/bin/python`, "
                    "`http.client`, `oauth.md`.\n")
    assert broken_references([page]) == []
