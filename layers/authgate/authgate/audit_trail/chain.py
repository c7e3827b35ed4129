"""The chain of objects: what each object holds, its name, and how a missing or edited one is found.

An object is JSON Lines: a header, then one event per line.

    {"authgate_audit_object":1,"sequence":42,"previous":"<SHA-256 of object 41, hex>","created":"...",
     "events":3,"events_sha256":"<SHA-256 of the event lines>","source":{...},"key":"<MAC key id>","mac":"..."}

`mac` is an HMAC-SHA-256 (authgate.audit_trail.mac) of the header's other members in canonical
JSON, so an object cannot be edited without the key, and each object names the digest of the one
before, so one cannot be taken out or replaced without breaking its successor. Objects are named
`events/date=YYYY-MM-DD/<NNNNNNNNNNNN>.jsonl` by the UTC day they were written (a partition Athena
reads) and a number that counts down as the sequence counts up, so a day's newest object is listed
first (one request finds the head of the chain).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from authgate.audit.record import is_event

MARK = "authgate_audit_object"
PREFIX = "events/"
TOP = 10**12  # sequences run from 1 to TOP - 1
_NAME = re.compile(r"^events/date=(\d{4}-\d{2}-\d{2})/(\d{12})\.jsonl$")


class Damaged(ValueError):
    """An object that is not a sealed audit object, or whose events are not what it sealed."""


class Signer(Protocol):
    """The key objects are sealed with (authgate.audit_trail.mac)."""

    key_id: str

    def sign(self, message: bytes) -> str: ...

    def valid(self, message: bytes, mac: str) -> bool: ...


class Head(NamedTuple):
    """The newest object of a chain: its sequence, digest and the stream position it ends at."""

    sequence: int
    digest: str
    source: dict[str, Any] | None


def name_of(date: str, sequence: int) -> str:
    return f"{PREFIX}date={date}/{TOP - sequence:012d}.jsonl"


def sequence_of(name: str) -> int | None:
    match = _NAME.match(name)
    return TOP - int(match.group(2)) if match else None


def date_of(name: str) -> str | None:
    match = _NAME.match(name)
    return match.group(1) if match else None


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def signed_part(header: Mapping[str, Any]) -> bytes:
    """What the MAC covers: every member of the header but `mac`, in canonical JSON."""
    return json.dumps({k: v for k, v in header.items() if k != "mac"}, separators=(",", ":"),
                      sort_keys=True, ensure_ascii=False).encode("utf-8")


def seal(sequence: int, previous: str, events: Sequence[dict[str, Any]], *, created: str,
         source: dict[str, Any] | None, signer: Signer) -> bytes:
    """The bytes of object `sequence`: its sealed header, then its events."""
    lines = "".join(_compact(event) + "\n" for event in events).encode("utf-8")
    header: dict[str, Any] = {MARK: 1, "sequence": sequence, "previous": previous, "created": created,
                              "events": len(events), "events_sha256": digest(lines), "source": source,
                              "key": signer.key_id}
    header["mac"] = signer.sign(signed_part(header))
    return (_compact(header) + "\n").encode("utf-8") + lines


def open_object(body: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An object's header and events; Damaged when it is not a sealed object or its events changed.
    (The MAC is checked by the reader, which knows the keys.)"""
    first, _, rest = body.partition(b"\n")
    try:
        header = json.loads(first)
    except ValueError:
        raise Damaged("its first line is not a sealed header") from None
    if not isinstance(header, dict) or header.get(MARK) != 1 or not isinstance(header.get("sequence"), int):
        raise Damaged("its first line is not a sealed header")
    if digest(rest) != header.get("events_sha256"):
        raise Damaged("its events are not the events it sealed")
    events = []
    for line in rest.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            raise Damaged("an event line is not JSON") from None
        if not is_event(event):
            raise Damaged("a line is not an audit event")
        events.append(event)
    if len(events) != header.get("events"):
        raise Damaged("it holds another number of events than it sealed")
    return header, events


def head_of(body: bytes) -> Head:
    header, _ = open_object(body)
    return Head(header["sequence"], digest(body), header.get("source"))


class Stored(NamedTuple):
    """An object as kept: its name, bytes and how many versions of it the store holds."""

    name: str
    body: bytes
    versions: int = 1


class Finding(NamedTuple):
    kind: str  # missing | edited | foreign | rewritten | broken | misplaced
    name: str
    detail: str

    def line(self) -> str:
        return f"{self.kind}: {self.name}: {self.detail}"


class Verified(NamedTuple):
    objects: int
    events: int
    first: int | None
    last: int | None
    findings: list[Finding]

    def verdict(self) -> str:
        """What the verification found, in one line: `INTACT: ...` or `NOT INTACT: N finding(s): ...`."""
        span = f"sequence {self.first} to {self.last}" if self.first is not None else "no object"
        verdict = "INTACT" if not self.findings else f"NOT INTACT: {len(self.findings)} finding(s)"
        return f"{verdict}: {self.objects} object(s), {span}, {self.events} event(s)"

    def described(self) -> dict[str, Any]:
        """The verification as data (`authgate events verify --json`)."""
        return {"objects": self.objects, "events": self.events, "first": self.first, "last": self.last,
                "intact": not self.findings, "findings": [f._asdict() for f in self.findings]}


def _gap(previous: tuple[int, str | None] | None, sequence: int | None, name: str,
         findings: list[Finding]) -> bool:
    """Whether objects are missing between `previous` and `sequence` (a finding for them if so)."""
    if previous is None or sequence is None or sequence == previous[0] + 1:
        return False
    gap = f"{previous[0] + 1}" if sequence == previous[0] + 2 else f"{previous[0] + 1} to {sequence - 1}"
    findings.append(Finding("missing", name, f"sequence {gap} before it is not there"))
    return True


def _shown(key: Any) -> str:
    """A key id as a header names it, fit for one line (it is whatever the object's writer put there)."""
    if key is None or key == "":
        return "none named"
    text = "".join(c if c.isprintable() else "?" for c in (key if isinstance(key, str) else _compact(key)))
    return (text[:200] + "...") if len(text) > 200 else text


def verify(objects: Iterable[Stored], mac_valid: Callable[[Mapping[str, Any]], bool], *, keys: Collection[str],
           anchor: Stored | None = None) -> Verified:
    """Walk `objects` in sequence order (after `anchor`, the object just before them, when the walk
    starts mid-chain) and report every object missing, edited, rewritten, sealed by another key or out of place.

    `keys` are the keys trusted to seal (the stack's own): an object whose header names another is a finding, and
    `mac_valid(header)` checks the MAC of one that names a trusted key."""
    findings: list[Finding] = []
    count = events = 0
    first = last = None
    # The sequence and digest of the object before (digest None: it was damaged).
    previous: tuple[int, str | None] | None = None
    if anchor is not None:
        sequence = sequence_of(anchor.name)
        previous = (sequence, digest(anchor.body)) if sequence is not None else None
    for stored in objects:
        count += 1
        if stored.versions > 1:
            findings.append(Finding("rewritten", stored.name, f"the bucket holds {stored.versions} versions of it"))
        named = sequence_of(stored.name)
        try:
            header, found = open_object(stored.body)
        except Damaged as exc:
            findings.append(Finding("edited", stored.name, str(exc)))
            _gap(previous, named, stored.name, findings)
            previous = (named, None) if named is not None else None
            continue
        sequence = header["sequence"]
        first = sequence if first is None else first
        last = sequence
        events += len(found)
        if named != sequence:
            findings.append(Finding("misplaced", stored.name, f"it holds sequence {sequence}"))
        key = header.get("key")
        if not isinstance(key, str) or key not in keys:
            findings.append(Finding("foreign", stored.name,
                                    f"sealed by a key that is not this stack's: {_shown(key)}"))
        elif not mac_valid(header):
            findings.append(Finding("edited", stored.name, "its seal does not match its header (MAC)"))
        if not _gap(previous, sequence, stored.name, findings):
            if previous is not None and previous[1] is not None and header.get("previous") != previous[1]:
                findings.append(Finding("broken", stored.name, f"the object before it (sequence {previous[0]}) is "
                                                               "not the one it sealed: edited or replaced"))
            elif previous is None and sequence == 1 and header.get("previous") != "":
                findings.append(Finding("broken", stored.name, "the first object names a predecessor"))
        previous = (sequence, digest(stored.body))
    return Verified(count, events, first, last, findings)
