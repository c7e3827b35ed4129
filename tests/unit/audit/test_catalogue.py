"""The audit catalogue: actions never disappear, are well formed, and `Action` and docs/audit.md follow it."""

from __future__ import annotations

import importlib.util
import json
import re
import typing
from pathlib import Path

from authgate.audit.actions import Action
from authgate.audit.catalogue import catalogue

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = json.loads((Path(__file__).parent / "published_actions.json").read_text("utf-8"))["actions"]
TARGETS = {"user", "client", "token", "charge", "tenant", "resource", "idp", "key"}

_spec = importlib.util.spec_from_file_location("generate_audit_actions", ROOT / "scripts" / "generate_audit_actions.py")
assert _spec is not None and _spec.loader is not None
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)


def test_no_published_action_disappears() -> None:
    # Receivers (a SIEM's rules, a function on the bus) match actions by name.
    assert sorted(set(PUBLISHED) - set(catalogue())) == []


def test_every_action_is_a_dotted_name_with_a_target_and_a_meaning() -> None:
    for name, entry in catalogue().items():
        assert re.fullmatch(r"[a-z]+\.[a-z_]+", name), name
        assert entry.target in TARGETS, name
        assert entry.meaning[0].isupper() and entry.meaning.endswith((".", ")")), name


def test_the_action_type_is_generated_from_the_catalogue() -> None:
    assert generator.TARGET.read_text("utf-8") == generator.render(), (
        "audit/actions.py is stale: run python scripts/generate_audit_actions.py")
    assert list(typing.get_args(Action)) == list(catalogue())


def test_docs_list_the_catalogue() -> None:
    text = generator.DOC.read_text("utf-8")
    assert text == generator.render_doc(text), "docs/audit.md is stale: run python scripts/generate_audit_actions.py"
    assert generator.BEGIN in text and generator.END in text
