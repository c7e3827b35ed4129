"""Would deploying template.yaml over the last release replace a stateful resource?

CloudFormation replaces a resource when a create-only property changes (or its logical id goes
away). For the unnamed tables, secret and log groups of this stack that is silent: the
replacement is created empty, the functions are pointed at it, and the old one is kept by
`UpdateReplacePolicy: Retain` with all the data, no longer used. This check compares each
stateful resource of the last release's template (deploy/released-template.yaml, refreshed by
`make release-snapshot` when a release reaches production) with template.yaml: the create-only
properties come from the CloudFormation resource schemas cfn-lint ships, plus the few that
AWS's resource reference marks "Update requires: Replacement" and the schema does not.

    python scripts/replacement_check.py [--released deploy/released-template.yaml] [--template template.yaml]

Exit status 1, with one line per resource, when a change would replace one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
RELEASED = REPO_ROOT / "deploy" / "released-template.yaml"
TEMPLATE = REPO_ROOT / "template.yaml"
# What holds data: replacing one of these loses it from the stack's point of view.
STATEFUL = ("AWS::DynamoDB::Table", "AWS::SecretsManager::Secret", "AWS::Logs::LogGroup")
# "Update requires: Replacement" in the CloudFormation resource reference, absent from the
# registry schema's createOnlyProperties (its handler replaces the table for these).
EXTRA_CREATE_ONLY = {"AWS::DynamoDB::Table": ("/properties/KeySchema", "/properties/LocalSecondaryIndexes")}


def create_only(kind: str, region: str = "us-east-1") -> list[str]:
    """JSON pointers (/properties/...) of the properties whose change replaces a `kind` resource."""
    from cfnlint.schema.manager import PROVIDER_SCHEMA_MANAGER

    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema(region, kind).schema
    return sorted(set(schema.get("createOnlyProperties") or []) | set(EXTRA_CREATE_ONLY.get(kind, ())))


def _at(properties: dict[str, Any], pointer: str) -> Any:
    value: Any = properties
    for part in pointer.split("/")[2:]:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def replacements(released: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """One line per stateful resource of `released` that deploying `current` would replace or drop."""
    found = []
    now = current.get("Resources") or {}
    for name, before in sorted((released.get("Resources") or {}).items()):
        if before.get("Type") not in STATEFUL:
            continue
        after = now.get(name)
        if after is None:
            found.append(f"{name}: removed (its data stays behind, retained, and the stack stops using it)")
            continue
        if after.get("Type") != before["Type"]:
            found.append(f"{name}: type {before['Type']} -> {after.get('Type')} (replaced)")
            continue
        for pointer in create_only(before["Type"]):
            old, new = _at(before.get("Properties") or {}, pointer), _at(after.get("Properties") or {}, pointer)
            if old != new:
                found.append(f"{name}: {pointer.removeprefix('/properties/')} changed (create-only: replaced, "
                             f"and the stack would use an empty {before['Type']}): {old!r} -> {new!r}")
    return found


def main(argv: list[str] | None = None) -> int:
    from authgate_cli.local import template

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--released", type=Path, default=RELEASED)
    parser.add_argument("--template", type=Path, default=TEMPLATE)
    args = parser.parse_args(argv)
    found = replacements(template.load(args.released), template.load(args.template))
    for line in found:
        print(f"replacement: {line}", file=sys.stderr)
    if not found:
        print(f"no stateful resource of {args.released.name} would be replaced")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
