"""authgate.audit_trail.reader: verification trusts the stack's own MAC key (and the keys its caller names), never the
key an object's header names; a read AWS refuses or fails is TrailUnreadable with AWS's code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from authgate.audit_trail.bucket import BucketStore
from authgate.audit_trail.chain import digest, name_of, seal
from authgate.audit_trail.directory import DirectoryStore
from authgate.audit_trail.errors import TrailUnreadable
from authgate.audit_trail.mac import KmsMac, LocalMac
from authgate.audit_trail.reader import Follower, events, verify_trail
from authgate.audit_trail.trail import Trail
from tests import aws_state

DAY = "2025-06-15"
CREATED = "2025-06-15T15:06:40.000Z"


def _event(n: int) -> dict[str, Any]:
    return {"id": f"01977420-dc7b-7b31-8987-{n:012d}", "time": CREATED, "tenant": "demo",
            "actor": {"type": "client", "id": "web"}, "action": "token.issued",
            "target": {"type": "client", "id": "web"}, "outcome": "success", "source_ip": "",
            "user_agent": "", "request_id": f"r{n}", "details": {}}


def _hmac_key() -> str:
    return str(aws_state.client("kms").create_key(KeySpec="HMAC_256", KeyUsage="GENERATE_VERIFY_MAC")
               ["KeyMetadata"]["Arn"])


def _append(store: Any, signer: Any, sequence: int, previous: bytes | None) -> bytes:
    """Object `sequence` sealed by `signer`, chained to `previous` as the audit function chains them, written."""
    body = seal(sequence, digest(previous) if previous else "", [_event(sequence)], created=CREATED, source=None,
                signer=signer)
    store.write(name_of(DAY, sequence), body)
    return body


@pytest.fixture
def bucket(aws: None) -> BucketStore:
    s3 = aws_state.client("s3")
    s3.create_bucket(Bucket="audit-trail")
    s3.put_bucket_versioning(Bucket="audit-trail", VersioningConfiguration={"Status": "Enabled"})
    return BucketStore("audit-trail")


def lines(trail: Trail, trusted: tuple[str, ...] = ()) -> list[str]:
    result = verify_trail(trail, trusted=trusted)
    return [f.line() for f in result.findings] + [result.verdict()]


@pytest.mark.slow
def test_an_object_sealed_by_a_kms_key_of_someone_elses_is_not_intact(bucket: BucketStore) -> None:
    """The forger writes the chain's next object, links it to the head and seals it with a KMS HMAC key of their own
    (GenerateMac): a seal that is valid for the key it names, but that key is not the stack's."""
    stack, forger = KmsMac(_hmac_key()), KmsMac(_hmac_key())
    trail = Trail(bucket, stack)
    head = _append(bucket, stack, 2, _append(bucket, stack, 1, None))
    assert lines(trail) == ["INTACT: 2 object(s), sequence 1 to 2, 2 event(s)"]
    _append(bucket, forger, 3, head)
    forged = name_of(DAY, 3)
    assert lines(trail) == [f"foreign: {forged}: sealed by a key that is not this stack's: {forger.key_id}",
                            "NOT INTACT: 1 finding(s): 3 object(s), sequence 1 to 3, 3 event(s)"]
    assert verify_trail(trail).described()["findings"] == [{
        "kind": "foreign", "name": forged, "detail": f"sealed by a key that is not this stack's: {forger.key_id}"}]
    # Listing still shows what it holds: `verify` is what says it cannot be trusted.
    assert [e["request_id"] for e in events(trail)] == ["r1", "r2", "r3"]


@pytest.mark.slow
def test_an_object_naming_the_stacks_key_with_anothers_seal_is_edited(bucket: BucketStore) -> None:
    """The forger names the stack's key in the header, but the MAC is their own key's: VerifyMac with the stack's key
    refuses it."""
    stack, forger = KmsMac(_hmac_key()), KmsMac(_hmac_key())
    trail = Trail(bucket, stack)
    first = _append(bucket, stack, 1, None)
    forged = seal(2, digest(first), [_event(2)], created=CREATED, source=None, signer=forger)
    bucket.write(name_of(DAY, 2), forged.replace(forger.key_id.encode(), stack.key_id.encode(), 1))
    assert lines(trail) == [f"edited: {name_of(DAY, 2)}: its seal does not match its header (MAC)",
                            "NOT INTACT: 1 finding(s): 2 object(s), sequence 1 to 2, 2 event(s)"]


@pytest.mark.slow
def test_an_earlier_key_of_the_stack_is_trusted_only_when_named(bucket: BucketStore) -> None:
    """AuditMacKey replaced by a deploy: the chain goes on under the new key; the objects the earlier key sealed
    verify when the operator names it (`--trust-key`), and are foreign otherwise."""
    earlier, current = KmsMac(_hmac_key()), KmsMac(_hmac_key())
    second = _append(bucket, earlier, 2, _append(bucket, earlier, 1, None))
    _append(bucket, current, 3, second)
    trail = Trail(bucket, current)
    assert lines(trail, (earlier.key_id,)) == ["INTACT: 3 object(s), sequence 1 to 3, 3 event(s)"]
    assert lines(trail) == [
        *(f"foreign: {name_of(DAY, n)}: sealed by a key that is not this stack's: {earlier.key_id}" for n in (1, 2)),
        "NOT INTACT: 2 finding(s): 3 object(s), sequence 1 to 3, 3 event(s)"]


def test_a_directorys_objects_sealed_by_another_key_file_are_foreign(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "audit")
    trail = Trail(store, store.mac())
    other = LocalMac(tmp_path / "other.key")
    _append(store, other, 2, _append(store, store.mac(), 1, None))
    assert lines(trail) == [f"foreign: {name_of(DAY, 2)}: sealed by a key that is not this stack's: {other.key_id}",
                            "NOT INTACT: 1 finding(s): 2 object(s), sequence 1 to 2, 2 event(s)"]


@pytest.mark.parametrize(("key", "shown"), [
    (None, "none named"), ("", "none named"), (["arn:aws:kms:x"], '["arn:aws:kms:x"]'),
    ("arn:aws:kms:us-east-1:1:key/a\nINTACT", "arn:aws:kms:us-east-1:1:key/a?INTACT"),
    ("k" * 300, "k" * 200 + "..."),
])
def test_a_header_naming_no_key_or_a_strange_one_is_named_on_one_line(tmp_path: Path, key: Any, shown: str) -> None:
    store = DirectoryStore(tmp_path / "audit")
    trail = Trail(store, store.mac())
    body = seal(1, "", [_event(1)], created=CREATED, source=None, signer=store.mac())
    header, _, rest = body.partition(b"\n")
    store.write(name_of(DAY, 1), json.dumps({**json.loads(header), "key": key}).encode() + b"\n" + rest)
    assert lines(trail) == [f"foreign: {name_of(DAY, 1)}: sealed by a key that is not this stack's: {shown}",
                            "NOT INTACT: 1 finding(s): 1 object(s), sequence 1 to 1, 1 event(s)"]


def test_a_read_aws_refuses_is_trail_unreadable_with_awss_code(aws: None) -> None:
    trail = Trail(BucketStore("no-such-bucket"), KmsMac(_hmac_key()))
    for read in (lambda: events(trail), lambda: verify_trail(trail), lambda: Follower(trail).poll()):
        with pytest.raises(TrailUnreadable) as refused:
            read()
        assert (refused.value.operation, refused.value.code, str(refused.value)) == (
            "ListObjectsV2", "NoSuchBucket", "the audit trail could not be read: ListObjectsV2 NoSuchBucket")


def test_a_seal_kms_cannot_check_now_is_trail_unreadable(bucket: BucketStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """KMS unreachable (the endpoint refuses connections): the SDK's exception name is the code."""
    from authgate import caches

    stack = KmsMac(_hmac_key())
    _append(bucket, stack, 1, None)
    monkeypatch.setenv("AWS_ENDPOINT_URL_KMS", "http://127.0.0.1:9")
    caches.reset()
    with pytest.raises(TrailUnreadable) as failed:
        verify_trail(Trail(bucket, KmsMac(stack.key_id)))
    assert (failed.value.operation, failed.value.code) == ("", "EndpointConnectionError")



def test_every_verifier_knows_the_stacks_key_from_the_stack_itself() -> None:
    """The key verification trusts is the stack's AuditMacKey: the audit function seals with it, the console function
    is told it (Verify the chain), and `authgate events --stack-name` reads it from the stack's output."""
    from authgate_cli.admin.target import environment_from
    from authgate_cli.local import template

    resources, outputs = template.load()["Resources"], template.load()["Outputs"]
    ours = {"Fn::GetAtt": ["AuditMacKey", "Arn"]}
    for function in ("AuditFunction", "ConsoleFunction"):
        assert resources[function]["Properties"]["Environment"]["Variables"]["AUTHGATE_AUDIT_MAC_KEY"] == ours
    assert outputs["AuditMacKeyArn"]["Value"] == ours
    tables = {f"{name}Name": f"authgate-staging-{name}" for name in template.resources("AWS::DynamoDB::Table")}
    key = "arn:aws:kms:eu-west-1:123456789012:key/0b3f6b1e-7c55-4d1a-9f7c-2f0c1d9a8e11"
    assert environment_from({**tables, "AuditMacKeyArn": key}, {})["AUTHGATE_AUDIT_MAC_KEY"] == key
