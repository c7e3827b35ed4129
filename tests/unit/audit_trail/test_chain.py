"""authgate.audit_trail.chain: sealed objects, and every missing, edited, replaced or rewritten one found."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from authgate.audit_trail.chain import (
    Damaged,
    Stored,
    date_of,
    digest,
    name_of,
    open_object,
    seal,
    sequence_of,
    signed_part,
    verify,
)
from authgate.audit_trail.mac import LocalMac


def _event(n: int) -> dict[str, Any]:
    return {"id": f"01J{n:023d}", "time": "2026-01-31T12:00:00.000Z", "tenant": "demo",
            "actor": {"type": "client", "id": "web"}, "action": "token.issued",
            "target": {"type": "client", "id": "web"}, "outcome": "success", "source_ip": "",
            "user_agent": "", "request_id": f"r{n}", "details": {"grant_type": "client_credentials"}}


@pytest.fixture
def mac(tmp_path: Path) -> LocalMac:
    return LocalMac(tmp_path / "mac.key")


def chain(mac: LocalMac, count: int) -> list[Stored]:
    objects: list[Stored] = []
    previous = ""
    for sequence in range(1, count + 1):
        body = seal(sequence, previous, [_event(sequence * 10 + i) for i in range(2)], created="2026-01-31T12:00:00.000Z",
                    source=None, signer=mac)
        objects.append(Stored(name_of("2026-01-31", sequence), body))
        previous = digest(body)
    return objects


def check(mac: LocalMac, objects: list[Stored], **kwargs: Any) -> list[str]:
    return [f.line() for f in verify(objects, lambda h: mac.valid(signed_part(h), h["mac"]), keys={mac.key_id},
                                     **kwargs).findings]


def test_names_count_down_and_carry_the_day() -> None:
    assert name_of("2026-01-31", 1) == "events/date=2026-01-31/999999999999.jsonl"
    assert name_of("2026-01-31", 2) < name_of("2026-01-31", 1)
    assert (sequence_of(name_of("2026-01-31", 42)), date_of(name_of("2026-01-31", 42))) == (42, "2026-01-31")
    assert sequence_of("events/other.json") is None


def test_an_object_opens_to_its_header_and_events(mac: LocalMac) -> None:
    body = chain(mac, 1)[0].body
    header, events = open_object(body)
    assert events == [_event(10), _event(11)]
    assert {k: header[k] for k in ("authgate_audit_object", "sequence", "previous", "events", "key")} == {
        "authgate_audit_object": 1, "sequence": 1, "previous": "", "events": 2, "key": mac.key_id}
    assert body.count(b"\n") == 3 and body.endswith(b"\n")


def test_an_intact_chain_verifies(mac: LocalMac) -> None:
    objects = chain(mac, 4)
    result = verify(objects, lambda h: mac.valid(signed_part(h), h["mac"]), keys={mac.key_id})
    assert (result.objects, result.events, result.first, result.last, result.findings) == (4, 8, 1, 4, [])


def test_an_edited_event_is_found(mac: LocalMac) -> None:
    objects = chain(mac, 3)
    edited = objects[1].body.replace(b'"tenant":"demo"', b'"tenant":"acme"', 1)
    objects[1] = objects[1]._replace(body=edited)
    assert check(mac, objects) == [
        f"edited: {objects[1].name}: its events are not the events it sealed",
    ]


def test_an_object_resealed_without_the_key_is_found(mac: LocalMac, tmp_path: Path) -> None:
    objects = chain(mac, 3)
    forger = LocalMac(tmp_path / "other.key")
    header, events = open_object(objects[1].body)
    forged = seal(2, header["previous"], [*events, _event(99)], created=header["created"], source=None,
                  signer=forger)
    # The forger names the real key, but cannot compute its MAC.
    forged = forged.replace(forger.key_id.encode(), mac.key_id.encode(), 1)
    objects[1] = objects[1]._replace(body=forged)
    assert check(mac, objects) == [
        f"edited: {objects[1].name}: its seal does not match its header (MAC)",
        f"broken: {objects[2].name}: the object before it (sequence 2) is not the one it sealed: edited or replaced",
    ]


def test_a_missing_object_is_named(mac: LocalMac) -> None:
    objects = chain(mac, 5)
    del objects[1:3]
    assert check(mac, objects) == [f"missing: {objects[1].name}: sequence 2 to 3 before it is not there"]


def test_a_rewritten_or_misplaced_object_is_named(mac: LocalMac) -> None:
    objects = chain(mac, 2)
    objects[0] = objects[0]._replace(versions=2)
    objects[1] = objects[1]._replace(name=name_of("2026-01-31", 7))
    assert check(mac, objects) == [
        f"rewritten: {objects[0].name}: the bucket holds 2 versions of it",
        f"misplaced: {objects[1].name}: it holds sequence 2",
    ]


def test_a_walk_from_mid_chain_checks_the_link_to_its_anchor(mac: LocalMac) -> None:
    objects = chain(mac, 4)
    assert check(mac, objects[2:], anchor=objects[1]) == []
    assert check(mac, objects[2:], anchor=objects[0]) == [
        f"missing: {objects[2].name}: sequence 2 before it is not there"]


@pytest.mark.parametrize("body", [b"", b"not json\n", b'{"authgate_audit_object": 2}\n', b'[1]\n'])
def test_what_is_not_a_sealed_object_is_damaged(body: bytes) -> None:
    with pytest.raises(Damaged):
        open_object(body)


def test_a_line_that_is_not_an_event_is_damage(mac: LocalMac) -> None:
    body = seal(1, "", [_event(1)], created="x", source=None, signer=mac)
    header = json.loads(body.partition(b"\n")[0])
    lines = b'{"not": "an event"}\n'
    header["events_sha256"] = digest(lines)
    with pytest.raises(Damaged, match="not an audit event"):
        open_object(json.dumps(header).encode() + b"\n" + lines)


def test_an_object_missing_after_an_edited_one_is_named_too(mac: LocalMac) -> None:
    objects = chain(mac, 4)
    objects[0] = objects[0]._replace(body=objects[0].body.replace(b'"demo"', b'"acme"', 1))
    del objects[1]
    assert check(mac, objects) == [
        f"edited: {objects[0].name}: its events are not the events it sealed",
        f"missing: {objects[1].name}: sequence 2 before it is not there",
    ]


def test_a_verification_says_its_verdict_in_one_line_and_as_data(mac: LocalMac) -> None:
    def valid(header: Mapping[str, Any]) -> bool:
        return mac.valid(signed_part(header), header["mac"])

    objects = chain(mac, 3)
    intact = verify(objects, valid, keys={mac.key_id})
    assert intact.verdict() == "INTACT: 3 object(s), sequence 1 to 3, 6 event(s)"
    assert intact.described() == {"objects": 3, "events": 6, "first": 1, "last": 3, "intact": True, "findings": []}
    assert verify([], valid, keys={mac.key_id}).verdict() == "INTACT: 0 object(s), no object, 0 event(s)"
    broken = verify([objects[0], objects[2]], valid, keys={mac.key_id})
    assert broken.verdict() == "NOT INTACT: 1 finding(s): 2 object(s), sequence 1 to 3, 4 event(s)"
    assert broken.described()["intact"] is False
    assert broken.described()["findings"] == [{"kind": "missing", "name": objects[2].name,
                                               "detail": "sequence 2 before it is not there"}]
