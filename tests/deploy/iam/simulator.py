"""AWS's IAM decision for a batch of requests, from @cloud-copilot/iam-simulate (a maintained
policy simulator: every condition operator, ForAllValues/ForAnyValue, IfExists, wildcards, KMS
key-policy trust, and validation of actions and resource ARNs against AWS's service reference).

It runs in Node (tools/iam-simulate, installed by `make iam-simulator` from its lock file); one
process evaluates the whole batch. A missing Node or package is an error, never a pass.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOOL_DIR = Path(__file__).resolve().parents[3] / "tools" / "iam-simulate"
ALLOWED = "Allowed"


class SimulatorUnavailable(RuntimeError):
    pass


@dataclass(frozen=True)
class Request:
    """One IAM authorization: a role's identity policies, an action on a resource, its context."""

    principal: str
    action: str
    resource: str
    context: dict[str, Any] = field(default_factory=dict)
    policies: tuple[dict[str, Any], ...] = ()
    resource_policy: dict[str, Any] | None = None
    account: str = "123456789012"


def default_key_policy(account: str) -> dict[str, Any]:
    """The key policy KMS gives a key created without one: IAM policies of the account decide."""
    return {"Version": "2012-10-17", "Statement": [{
        "Sid": "Enable IAM User Permissions", "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{account}:root"}, "Action": "kms:*", "Resource": "*"}]}


def evaluate(requests: list[Request]) -> list[dict[str, Any]]:
    """[{result: Allowed | ImplicitlyDenied | ExplicitlyDenied | Error, errors?}] per request."""
    if not requests:
        return []
    node = shutil.which("node")
    if node is None:
        raise SimulatorUnavailable("node is not installed: the IAM check needs Node.js (Debian package nodejs)")
    if not (TOOL_DIR / "node_modules" / "@cloud-copilot" / "iam-simulate").is_dir():
        raise SimulatorUnavailable(f"{TOOL_DIR}/node_modules is missing: run `make iam-simulator`")
    payload = [{"id": i, "principal": r.principal, "accountId": r.account, "action": r.action,
                "resource": r.resource, "context": r.context, "policies": list(r.policies),
                "resourcePolicy": r.resource_policy} for i, r in enumerate(requests)]
    done = subprocess.run([node, str(TOOL_DIR / "evaluate.mjs")], input=json.dumps(payload), cwd=TOOL_DIR,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SimulatorUnavailable(f"iam-simulate failed ({done.returncode}): {done.stderr[-2000:]}")
    results = sorted(json.loads(done.stdout), key=lambda r: r["id"])
    if len(results) != len(requests):
        raise SimulatorUnavailable(f"iam-simulate answered {len(results)} of {len(requests)} requests")
    return results
