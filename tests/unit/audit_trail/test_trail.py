"""authgate.audit_trail.trail and .directory: appending objects to a chain, one writer at a time."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from authgate.audit_trail.chain import open_object, sequence_of
from authgate.audit_trail.directory import DirectoryStore
from authgate.audit_trail.reader import events, verify_trail
from authgate.audit_trail.trail import Trail, read_head
from authgate.clock import ManualClock, using


def _event(n: int, time: str = "2026-01-31T12:00:00.000Z") -> dict[str, Any]:
    return {"id": f"01J{n:023d}", "time": time, "tenant": "demo", "actor": {"type": "client", "id": "web"},
            "action": "token.issued", "target": {"type": "client", "id": "web"}, "outcome": "success",
            "source_ip": "", "user_agent": "", "request_id": "", "details": {}}


def trail_in(path: Path) -> Trail:
    store = DirectoryStore(path)
    return Trail(store, store.mac())


def test_objects_follow_one_another_across_writers(tmp_path: Path) -> None:
    first = trail_in(tmp_path)
    with using(ManualClock(1_769_860_800.0)):  # 2026-01-31T12:00:00Z
        names = [first.append([_event(1)]), trail_in(tmp_path).append([_event(2)]), first.append([_event(3)])]
    assert [sequence_of(n) for n in names] == [1, 2, 3]
    assert names[0] == "events/date=2026-01-31/999999999999.jsonl"
    assert read_head(first.store).sequence == 3  # type: ignore[union-attr]
    assert verify_trail(first).findings == []
    assert [e["id"] for e in events(first)] == [_event(n)["id"] for n in (1, 2, 3)]


def test_concurrent_appends_make_one_unbroken_chain(tmp_path: Path) -> None:
    def write(n: int) -> None:
        trail_in(tmp_path).append([_event(n)])

    threads = [threading.Thread(target=write, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result = verify_trail(trail_in(tmp_path))
    assert (result.objects, result.first, result.last, result.findings) == (12, 1, 12, [])


def test_files_are_read_only_and_the_key_owner_only(tmp_path: Path) -> None:
    name = trail_in(tmp_path).append([_event(1)])
    assert os.stat(tmp_path / name).st_mode & 0o777 == 0o400
    assert os.stat(tmp_path / "mac.key").st_mode & 0o777 == 0o600


def test_a_deleted_or_edited_file_is_found(tmp_path: Path) -> None:
    trail = trail_in(tmp_path)
    names = [trail.append([_event(n)]) for n in range(1, 5)]
    (tmp_path / names[1]).unlink()
    edited = tmp_path / names[3]
    edited.chmod(0o600)
    edited.write_bytes(edited.read_bytes().replace(b'"web"', b'"evil"'))
    assert [f.line() for f in verify_trail(trail_in(tmp_path)).findings] == [
        f"missing: {names[2]}: sequence 2 before it is not there",
        f"edited: {names[3]}: its events are not the events it sealed",
    ]


def test_events_are_listed_once_by_time_within_the_period(tmp_path: Path) -> None:
    trail = trail_in(tmp_path)
    with using(ManualClock(1_769_860_800.0)):  # objects written 2026-01-31T12:00:00Z
        trail.append([_event(1, "2026-01-30T23:59:59.999Z"), _event(2, "2026-01-31T00:00:00.000Z")])
        trail.append([_event(2, "2026-01-31T00:00:00.000Z"), _event(3, "2026-01-31T10:00:00.000Z")])  # redelivered
    since = 1_769_817_600_000  # 2026-01-31T00:00:00Z
    assert [e["id"] for e in events(trail, since)] == [_event(2)["id"], _event(3)["id"]]
    assert [e["id"] for e in events(trail, None, since)] == [_event(1)["id"], _event(2)["id"]]
    header, _ = open_object(trail.store.read(trail.store.newest(trail.store.dates()[-1]) or ""))
    assert header["sequence"] == 2
