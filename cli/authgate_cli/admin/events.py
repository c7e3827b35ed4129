"""`authgate events list | tail | verify`: the audit trail, as the people who answer auditors read it.

`list` prints the kept events of a period (default: the last 24 hours) that match every filter
given; `tail` prints the newest and then each event as it is kept, until Ctrl-C; `verify` checks
every object of the chain from `--since` (default: all of it) and names each one missing,
edited or rewritten (exit status 1), or says it is intact. On a deployed stack they read the
audit bucket (s3:ListBucket, s3:GetObject, s3:ListBucketVersions, kms:Decrypt and
kms:VerifyMac with the trail's keys: docs/audit.md), locally the trail's directory. Times are
ISO 8601 in UTC (2026-01-31, 2026-01-31T12:00:00Z) or an age (90s, 15m, 2h, 7d).
"""

from __future__ import annotations

import argparse
import calendar
import json
import re
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from authgate_cli.admin import arguments, target

DEFAULT_PERIOD_MS = 86_400_000
_AGE = re.compile(r"^(\d{1,6})([smhd])$")
_AGE_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_FORMATS = ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%MZ", "%Y-%m-%dT%H:%M", "%Y-%m-%d")


def when(text: str, what: str, now_ms: int | None = None) -> int:
    """Milliseconds since the epoch of an ISO 8601 UTC time or date, or of an age before now."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    age = _AGE.match(text)
    if age:
        return now_ms - int(age.group(1)) * _AGE_MS[age.group(2)]
    cleaned = re.sub(r"\.\d+(?=Z?$)", "", text)
    for pattern in _FORMATS:
        try:
            return calendar.timegm(time.strptime(cleaned, pattern)) * 1000
        except ValueError:
            continue
    raise arguments.InvalidInput(f"{what} {text!r} is neither an ISO 8601 time in UTC (2026-01-31T12:00:00Z, "
                                 "2026-01-31) nor an age (90s, 15m, 2h, 7d)")


def matcher(args: argparse.Namespace) -> Callable[[dict[str, Any]], bool]:
    """Whether an event matches every filter given (--tenant, --user, --client, --action)."""
    def named(e: dict[str, Any], kind: str, member: str) -> set[str]:
        """The ids of `kind` an event names: its actor's, its target's, and `details[member]`."""
        found = {str(e[side].get("id", "")) for side in ("actor", "target") if e[side].get("type") == kind}
        details = e.get("details")
        return found | ({str(details[member])} if isinstance(details, dict) and details.get(member) else set())

    action = args.action or ""
    prefix = action[:-1] if action.endswith("*") else None

    def match(e: dict[str, Any]) -> bool:
        return ((not args.tenant or e.get("tenant") == args.tenant)
                and (not args.user or args.user in named(e, "user", "username"))
                and (not args.client or args.client in named(e, "client", "client_id"))
                and (not action or (e["action"].startswith(prefix) if prefix is not None else e["action"] == action)))

    return match


def _row(e: dict[str, Any]) -> tuple[str, ...]:
    actor, subject = e["actor"], e["target"]
    who = f"{actor.get('type')}:{actor.get('id')}"
    what = f"{subject.get('type')}:{subject.get('id')}"
    if e.get("details", {}).get("username") and subject.get("type") == "user":
        what += f" ({e['details']['username']})"
    outcome = e["outcome"] + (f" ({e['reason']})" if e.get("reason") else "")
    return (e["time"], e["action"], outcome, e.get("tenant") or "-", who, what)


def write_table(events: list[dict[str, Any]], out: IO[str], header: bool = True) -> None:
    rows = ([("TIME", "ACTION", "OUTCOME", "TENANT", "ACTOR", "TARGET")] if header else []) + [_row(e) for e in events]
    if not rows:
        return
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")


def list_events(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.audit_trail.consumer import current_trail
    from authgate.audit_trail.reader import events

    until = when(args.until, "--until") if args.until else None
    since = when(args.since, "--since") if args.since else (until or int(time.time() * 1000)) - DEFAULT_PERIOD_MS
    found = events(current_trail(), since, until, matcher(args))[-args.limit:]
    if args.json:
        out.write(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    elif found:
        write_table(found, out)
    else:
        sys.stderr.write("no event matches\n")
    return 0


def tail_events(args: argparse.Namespace, out: IO[str] = sys.stdout, polls: int | None = None) -> int:
    """The newest matching events, then each new one as it is kept; `polls` bounds the loop (tests)."""
    from authgate.audit_trail.consumer import current_trail
    from authgate.audit_trail.reader import Follower

    follower, match = Follower(current_trail()), matcher(args)
    shown = [e for e in follower.poll() if match(e)][-args.last:]
    header = True
    try:
        while True:
            if args.json:
                out.writelines(json.dumps(e, ensure_ascii=False) + "\n" for e in shown)
            else:
                write_table(shown, out, header=header and bool(shown))
                header = header and not shown
            out.flush()
            if polls is not None:
                polls -= 1
                if polls <= 0:
                    return 0
            time.sleep(args.interval)
            shown = [e for e in follower.poll() if match(e)]
    except KeyboardInterrupt:
        return 0


def verify_events(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.audit_trail.consumer import current_trail
    from authgate.audit_trail.reader import verify_trail

    result = verify_trail(current_trail(), when(args.since, "--since") if args.since else None)
    if args.json:
        out.write(json.dumps({"objects": result.objects, "events": result.events, "first": result.first,
                              "last": result.last, "intact": not result.findings,
                              "findings": [f._asdict() for f in result.findings]}, indent=2) + "\n")
    else:
        for finding in result.findings:
            out.write(finding.line() + "\n")
        span = f"sequence {result.first} to {result.last}" if result.first is not None else "no object"
        verdict = "INTACT" if not result.findings else f"NOT INTACT: {len(result.findings)} finding(s)"
        out.write(f"{verdict}: {result.objects} object(s), {span}, {result.events} event(s)\n")
    return 1 if result.findings else 0


ACTIONS: dict[str, Callable[[argparse.Namespace, IO[str]], int]] = {
    "list": list_events, "tail": tail_events, "verify": verify_events}


def _validate(args: argparse.Namespace) -> None:
    for name in ("since", "until"):
        if getattr(args, name, None):
            when(getattr(args, name), f"--{name}")
    for name in ("tenant", "user", "client", "action"):
        value = getattr(args, name, None)
        if value is not None:
            arguments.text(value, f"--{name}")
    for name, low, high in (("limit", 1, 100_000), ("last", 1, 100_000), ("interval", 0.1, 600)):
        value = getattr(args, name, None)
        if value is not None and not low <= value <= high:
            raise arguments.InvalidInput(f"--{name} must be between {low} and {high}, got {value}")


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate events: {exc}\n")
        return 2
    return target.run(args, "events", lambda: ACTIONS[args.events_command](args, sys.stdout))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "events", help="the audit trail (list, tail, verify)",
        description="Read and verify the audit trail: every security-relevant act of the stack (docs/audit.md).")
    sub = parser.add_subparsers(dest="events_command", required=True, metavar="ACTION")
    listing = sub.add_parser("list", help="the events of a period (default: the last 24 hours)")
    tail = sub.add_parser("tail", help="the newest events, then each one as it is kept (Ctrl-C stops)")
    verify = sub.add_parser("verify", help="check that no object of the trail is missing, edited or rewritten")
    for action in (listing, tail):
        action.add_argument("--tenant", help="only this tenant's events")
        action.add_argument("--user", metavar="USER", help="only events by or on this user (user_id or username)")
        action.add_argument("--client", metavar="CLIENT_ID", help="only events by or on this client")
        action.add_argument("--action", metavar="ACTION", help="only this action (token.issued), or a family (token.*)")
    listing.add_argument("--since", metavar="WHEN", help="from this time or age (default: 24h before --until)")
    listing.add_argument("--until", metavar="WHEN", help="up to this time or age (default: now)")
    listing.add_argument("--limit", type=int, default=1000, help="at most this many, the newest (default 1000)")
    tail.add_argument("--last", type=int, default=10, help="how many of the newest to show first (default 10)")
    tail.add_argument("--interval", type=float, default=2.0, metavar="SECONDS",
                      help="how often to look for new events (default 2)")
    verify.add_argument("--since", metavar="WHEN", help="from the objects of this day (default: the whole chain)")
    for action in (listing, tail, verify):
        action.add_argument("--json", action="store_true", help="machine-readable output (tail: one event per line)")
        target.add_arguments(action)
        action.set_defaults(func=_run)
