"""Least privilege, both ways: every recorded call is allowed, every grant is used (or excused).

Inputs: the IAM requests the recorder wrote (authgate_call_recorder, one JSON line per unique
request per process, across pytest's workers and every `authgate serve`), the worlds they ran
in (the local test world, and each emulated deployment's resolved resources), and the
SAM-transformed template. Each function's role is its inline policies, resolved for the world
the call ran in; the decision is iam-simulate's (tests/deploy/iam/simulator.py), with the KMS key's
own policy as the recorder saw it (KMS's default policy when none was recorded). A call on a key
younger than five minutes carries no `aws:ResourceTag/*` (KMS's tag delay; the recorder).

- denied: a call the function made that its role would not allow (AccessDenied in AWS, a 500);
- unused: an action, or one resource of a statement, whose removal denies no recorded call,
  unless tests/deploy/iam/unexercised.yaml names it with a reason.

The managed policies SAM attaches (AWSLambdaBasicExecutionRole, AWSXrayWriteOnlyAccess) are
used by the Lambda service for the function (log delivery, trace upload), not by its code; they
are listed in the report and not evaluated.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.deploy.iam.simulator import ALLOWED, Request, default_key_policy, evaluate
from tests.deploy.transform import World, condition, local_world, resolve

REASONS_FILE = Path(__file__).with_name("unexercised.yaml")


@dataclass(frozen=True)
class Call:
    world: str
    function: str
    operation: str
    action: str
    resource: str
    context: str  # JSON, sorted keys
    test: str
    error: str | None = None
    resource_policy: str = ""  # JSON: the KMS key's own policy at call time, when recorded

    @property
    def context_dict(self) -> dict[str, Any]:
        return json.loads(self.context)


@dataclass(frozen=True)
class Grant:
    """One action, or one resource, of one statement of a function's role."""

    function: str
    sid: str
    action: str | None = None
    resource: str | None = None  # display form, e.g. "TenantsTable" or the ARN pattern

    def label(self) -> str:
        what = self.action if self.action else f"resource {self.resource}"
        return f"{self.function} {self.sid}: {what}"


@dataclass
class Report:
    denied: list[tuple[Call, dict[str, Any]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unused: list[Grant] = field(default_factory=list)
    excused: dict[Grant, str] = field(default_factory=dict)
    rows: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    calls: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.denied or self.problems or self.unused)

    def summary(self) -> list[str]:
        lines = [(f"IAM least privilege: {self.calls} distinct recorded requests, "
                 f"{len(self.denied)} denied, {len(self.unused)} unused grants, {len(self.excused)} excused")]
        lines += [f"  DENIED  {c.function} {c.action} {c.resource} ({c.world}; {c.test or 'no test'}): "
                  f"{r['result']}{' ' + json.dumps(r.get('errors')) if r.get('errors') else ''}"
                  for c, r in self.denied]
        lines += [f"  PROBLEM {p}" for p in self.problems]
        lines += [f"  UNUSED  {g.label()} (no recorded call needs it; use it in a test or list it "
                  f"with a reason in {REASONS_FILE.relative_to(REASONS_FILE.parents[3])})" for g in self.unused]
        return lines

    def markdown(self) -> str:
        out = ["| Function | Action | Resource | Recorded by (test) or reason |", "|---|---|---|---|"]
        out += [f"| {f} | {a} | {r} | {w} |" for f, a, r, w, _ in self.rows]
        return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------- inputs


def read_calls(directory: Path) -> list[Call]:
    """Unique requests of every process (the first test that made each one)."""
    found: dict[tuple[Any, ...], Call] = {}
    for path in sorted(directory.glob("calls-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            raw = json.loads(line)
            call = Call(world=raw["world"], function=raw["function"], operation=raw["operation"],
                        action=raw["action"], resource=raw["resource"],
                        context=json.dumps(raw.get("context") or {}, sort_keys=True),
                        test=raw.get("test") or "", error=raw.get("error"),
                        resource_policy=json.dumps(raw["resource_policy"], sort_keys=True)
                        if raw.get("resource_policy") else "")
            key = (call.world, call.function, call.action, call.resource, call.context, call.resource_policy)
            if key not in found or (not found[key].test and call.test):
                found[key] = call
    return list(found.values())


def read_worlds(directory: Path, source: dict[str, Any] | None = None) -> dict[str, World]:
    worlds = {"local": local_world(source)}
    for path in sorted((directory / "worlds").glob("*.json")):
        world = World.from_json(json.loads(path.read_text(encoding="utf-8")))
        worlds[world.stack] = world
    return worlds


def read_reasons(path: Path = REASONS_FILE) -> list[dict[str, str]]:
    if not path.exists():
        return []
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    for entry in entries:
        if not entry.get("reason"):
            raise ValueError(f"{path}: every entry needs a reason: {entry}")
    return entries


# ------------------------------------------------------------------------------- roles


def role_of(function: str, transformed: dict[str, Any]) -> str:
    role = transformed["Resources"][function]["Properties"]["Role"]
    return role["Fn::GetAtt"][0] if isinstance(role, dict) else str(role)


# Marks a statement of an AWS::IAM::RolePolicy that has a Condition: it applies only in a world where that holds.
CONDITION = "__condition__"


def inline_statements(function: str, transformed: dict[str, Any]) -> list[dict[str, Any]]:
    """The role's inline statements, unresolved, in order (policy by policy), then those of the
    AWS::IAM::RolePolicy resources attached to the role (each marked with its Condition, if any)."""
    name = role_of(function, transformed)
    role = transformed["Resources"][name]["Properties"]
    out = []
    for policy in role.get("Policies") or []:
        statements = policy["PolicyDocument"]["Statement"]
        out.extend(statements if isinstance(statements, list) else [statements])
    for resource in transformed["Resources"].values():
        if resource["Type"] == "AWS::IAM::RolePolicy" and resource["Properties"]["RoleName"] == {"Ref": name}:
            statements = resource["Properties"]["PolicyDocument"]["Statement"]
            for statement in statements if isinstance(statements, list) else [statements]:
                out.append({**statement, CONDITION: resource["Condition"]} if "Condition" in resource else statement)
    return out


def _in_world(statements: list[dict[str, Any]], transformed: dict[str, Any], world: World) -> list[dict[str, Any]]:
    """The statements that exist in `world` (a RolePolicy's Condition holds there), without the marks."""
    return [{k: v for k, v in statement.items() if k != CONDITION} for statement in statements
            if CONDITION not in statement or condition(statement[CONDITION], transformed, world)]


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def display(resource: Any) -> str:
    if isinstance(resource, dict) and "Fn::GetAtt" in resource:
        logical, attribute = resource["Fn::GetAtt"]
        return logical if attribute == "Arn" else f"{logical}.{attribute}"
    if isinstance(resource, dict) and "Ref" in resource:
        return resource["Ref"]
    if isinstance(resource, dict) and "Fn::Sub" in resource:
        sub = resource["Fn::Sub"]
        return (sub if isinstance(sub, str) else sub[0]).replace("arn:${AWS::Partition}:", "").replace(
            ":${AWS::Region}:${AWS::AccountId}:", ":")
    return str(resource)


def _policy(statements: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": statements}


def _without(statements: list[dict[str, Any]], index: int, *, action: str | None = None,
             resource: int | None = None) -> list[dict[str, Any]]:
    """The statements with one action, or one resource, taken out of statement `index`."""
    out = []
    for i, statement in enumerate(statements):
        if i != index:
            out.append(statement)
            continue
        changed = dict(statement)
        if action is not None:
            actions = [a for a in _as_list(statement["Action"]) if a != action]
            if not actions:
                continue
            changed["Action"] = actions
        if resource is not None:
            resources = [r for j, r in enumerate(_as_list(statement["Resource"])) if j != resource]
            changed["Resource"] = resources
        out.append(changed)
    return out


def _request(call: Call, statements: list[dict[str, Any]], transformed: dict[str, Any], world: World) -> Request:
    role = role_of(call.function, transformed)
    policy = resolve(_policy(_in_world(statements, transformed, world)), transformed, world)
    key_policy = None
    if call.action.startswith("kms:") and call.resource != "*":
        key_policy = json.loads(call.resource_policy) if call.resource_policy else default_key_policy(world.account)
    principal = world.attrs.get(f"{role}.Arn") or f"arn:aws:iam::{world.account}:role/{world.stack}-{role}"
    return Request(principal=principal, action=call.action,
                   resource=call.resource, context=call.context_dict, policies=(policy,),
                   resource_policy=key_policy, account=world.account)


def _matches(action: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(action.lower(), pattern.lower())


# ------------------------------------------------------------------------------- the check


def check(calls: Iterable[Call], worlds: dict[str, World], transformed: dict[str, Any], *,
          unused: bool, reasons: list[dict[str, str]] | None = None) -> Report:
    report = Report()
    functions = {name for name, r in transformed["Resources"].items() if r["Type"] == "AWS::Lambda::Function"}
    evaluable: list[Call] = []
    for call in calls:
        if call.world not in worlds:
            report.problems.append(f"{call.function} {call.action} ran in stack {call.world!r}, which no "
                                   "world file describes (an emulated deployment must record its world)")
        elif call.function not in functions:
            report.problems.append(f"call attributed to {call.function!r}, not a function of the template")
        else:
            evaluable.append(call)
    report.calls = len(evaluable)

    # 1. Every call allowed by its function's role.
    base = [_request(c, inline_statements(c.function, transformed), transformed, worlds[c.world]) for c in evaluable]
    allowed: list[Call] = []
    for call, result in zip(evaluable, evaluate(base), strict=True):
        if result["result"] == ALLOWED:
            allowed.append(call)
        else:
            report.denied.append((call, result))

    # 2. Every grant needed by some allowed call: take it out, and some call must be denied.
    grants: list[tuple[Grant, str, list[dict[str, Any]], list[Call]]] = []
    for function in sorted({c.function for c in evaluable} | functions):
        statements = inline_statements(function, transformed)
        mine = [c for c in allowed if c.function == function]
        for index, statement in enumerate(statements):
            sid = statement.get("Sid", f"#{index}")
            actions = _as_list(statement["Action"])
            resources = _as_list(statement.get("Resource", "*"))
            for action in actions:
                affected = [c for c in mine if _matches(c.action, action)]
                grants.append((Grant(function, sid, action=action), display(resources[0]) if len(resources) == 1
                               else ", ".join(display(r) for r in resources),
                               _without(statements, index, action=action), affected))
            if len(resources) > 1:
                for j, resource in enumerate(resources):
                    affected = [c for c in mine if any(_matches(c.action, a) for a in actions)]
                    grants.append((Grant(function, sid, resource=display(resource)), display(resource),
                                   _without(statements, index, resource=j), affected))
    variants = [(g, c) for g, _, stmts, affected in grants for c in affected]
    requests = [_request(c, stmts, transformed, worlds[c.world])
                for g, _, stmts, affected in grants for c in affected]
    needed: dict[Grant, Call] = {}
    for (grant, call), result in zip(variants, evaluate(requests), strict=True):
        if result["result"] != ALLOWED and grant not in needed:
            needed[grant] = call

    excuses = reasons if reasons is not None else read_reasons()
    for grant, shown, _, _ in grants:
        reason = next((e["reason"] for e in excuses if e["function"] == grant.function and e["sid"] == grant.sid
                       and e.get("action") == grant.action and e.get("resource") == grant.resource), None)
        if grant in needed:
            call = needed[grant]
            witness = call.test or f"(started by a test; {call.world})"
        elif reason:
            report.excused[grant] = reason
            witness = f"not exercised: {reason}"
        else:
            witness = "UNUSED"
            if unused:
                report.unused.append(grant)
        if grant.action:
            report.rows.append((grant.function, grant.action, shown, witness, grant.sid))
    for function in sorted(functions):
        role = transformed["Resources"][role_of(function, transformed)]["Properties"]
        for arn in role.get("ManagedPolicyArns") or []:
            name = display(arn).rsplit("/", 1)[-1]
            report.rows.append((function, f"(managed) {name}", "*",
                                "used by the Lambda service for the function (logs, traces), not by its code", ""))
    return report
