"""`authgate events list | tail | verify`: the audit trail, as the people who answer auditors read it.

`list` prints the kept events of a period (default: the last 24 hours) that match every filter
given; `tail` prints the newest and then each event as it is kept, until Ctrl-C; `verify` checks
every object of the chain from `--since` (default: all of it) and names each one missing,
edited, rewritten or sealed by a key that is not the stack's (exit status 1), or says it is
intact: it trusts the stack's own MAC key (output AuditMacKeyArn) and the keys `--trust-key`
names, never the key an object names. On a deployed stack they read the audit bucket
(s3:ListBucket, s3:GetObject, s3:ListBucketVersions, kms:Decrypt and kms:VerifyMac with the
trail's keys: docs/audit.md), locally the trail's directory; an AWS error is one line and exit
status 2, as for every admin command. Times are ISO 8601 in UTC (2026-01-31,
2026-01-31T12:00:00Z) or an age (90s, 15m, 2h, 7d).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from authgate_cli.admin import arguments, target


def when(text: str, what: str, now_ms: int | None = None) -> int:
    """Milliseconds since the epoch of an ISO 8601 UTC time or date, or of an age before now."""
    from authgate.audit_trail.query import InvalidTime
    from authgate.audit_trail.query import when as parsed

    try:
        return parsed(text, what, now_ms)
    except InvalidTime as exc:
        raise arguments.InvalidInput(str(exc)) from None


def matcher(args: argparse.Namespace) -> Callable[[dict[str, Any]], bool]:
    """Whether an event matches every filter given (--tenant, --user, --client, --action)."""
    from authgate.audit_trail.query import Filters
    from authgate.audit_trail.query import matcher as matching

    return matching(Filters(args.tenant, args.user, args.client, args.action))


def write_table(events: list[dict[str, Any]], out: IO[str], header: bool = True) -> None:
    from authgate.audit_trail.query import summary

    rows = ([("TIME", "ACTION", "OUTCOME", "TENANT", "ACTOR", "TARGET")] if header else []) + [summary(e) for e in events]
    if not rows:
        return
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")


def list_events(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.audit_trail.query import newest, period

    found = newest(*period(args.since, args.until), matcher(args))[:args.limit][::-1]
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
    from authgate.audit_trail.query import InvalidTime, verified

    try:
        result = verified(args.since, trusted=getattr(args, "trust_key", None) or ())
    except InvalidTime as exc:
        raise arguments.InvalidInput(str(exc)) from None
    if args.json:
        out.write(json.dumps(result.described(), indent=2) + "\n")
    else:
        out.writelines(finding.line() + "\n" for finding in result.findings)
        out.write(result.verdict() + "\n")
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
    from authgate.audit_trail.query import trusted_key

    for key in getattr(args, "trust_key", None) or ():
        trusted_key(key)
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
    return target.run(args, "events", lambda: _reading(args))


def _reading(args: argparse.Namespace) -> int:
    """The action; a read AWS refused or failed is the SDK's error again, which target.run says in one line (exit 2)."""
    from authgate.audit_trail.errors import TrailUnreadable

    try:
        return ACTIONS[args.events_command](args, sys.stdout)
    except TrailUnreadable as exc:
        raise exc.error from None


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
    verify.add_argument("--trust-key", metavar="KEY_ARN", action="append",
                        help="also trust seals by this KMS key, an earlier MAC key of this stack (repeatable; "
                             "default: the stack's own AuditMacKeyArn only)")
    for action in (listing, tail, verify):
        action.add_argument("--json", action="store_true", help="machine-readable output (tail: one event per line)")
        target.add_arguments(action)
        action.set_defaults(func=_run)
