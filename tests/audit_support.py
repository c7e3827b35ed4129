"""A stage's audit trail in moto, as template.yaml declares it: the Object Lock bucket, the HMAC key
under the template's own key policy, the bus (with a queue subscribed to it, to see what it
carries), the unpublished queue; and the stream's records as the audit function receives them.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from authgate_cli.local import template
from tests import aws_state
from tests.deploy.transform import local_world, resolve

SHARD = "shardId-000000000000"


@dataclass
class AuditStage:
    bucket: str
    mac_key: str
    bus: str
    unpublished_queue: str
    subscriber_queue: str
    sequence: int = 0

    def environment(self) -> dict[str, str]:
        return {"AUTHGATE_AUDIT_BUCKET": self.bucket, "AUTHGATE_AUDIT_MAC_KEY": self.mac_key,
                "AUTHGATE_AUDIT_BUS": self.bus, "AUTHGATE_AUDIT_UNPUBLISHED_QUEUE": self.unpublished_queue}

    def records(self, *batches: Iterable[str], raw: bool = False) -> list[dict[str, Any]]:
        """One stream record per batch of log lines: a CloudWatch Logs subscription batch (gzip), or
        with `raw` the lines as an admin command puts them."""
        out = []
        for lines in batches:
            self.sequence += 1
            lines = list(lines)
            data = ("\n".join(lines) + "\n").encode() if raw else gzip.compress(json.dumps({
                "messageType": "DATA_MESSAGE", "logGroup": "/aws/lambda/token", "logStream": "s",
                "subscriptionFilters": ["TokenAuditLines"],
                "logEvents": [{"id": str(i), "timestamp": 0, "message": line} for i, line in enumerate(lines)],
            }).encode())
            out.append({"eventSource": "aws:kinesis", "eventID": f"{SHARD}:{self.sequence:056d}",
                        "kinesis": {"data": base64.b64encode(data).decode(), "sequenceNumber": f"{self.sequence:056d}",
                                    "partitionKey": "p"}})
        return out

    def published(self) -> list[dict[str, Any]]:
        """The events the bus delivered to its subscriber queue so far (the EventBridge events, whole)."""
        sqs = aws_state.client("sqs")
        found = []
        while True:
            messages = sqs.receive_message(QueueUrl=self.subscriber_queue, MaxNumberOfMessages=10).get("Messages", [])
            if not messages:
                return found
            for message in messages:
                found.append(json.loads(message["Body"]))
                sqs.delete_message(QueueUrl=self.subscriber_queue, ReceiptHandle=message["ReceiptHandle"])


def earlier_mac_key() -> str:
    """A retained earlier AuditMacKey of the stage (a template change replaced it): a KMS HMAC key under the template's
    own policy for that key, which lets the console's role VerifyMac (call inside mock_aws); its ARN."""
    properties = template.load()["Resources"]["AuditMacKey"]["Properties"]
    policy = resolve(properties["KeyPolicy"], template.load(), local_world())
    return str(aws_state.client("kms").create_key(KeySpec=properties["KeySpec"], KeyUsage=properties["KeyUsage"],
                                                  Policy=json.dumps(policy))["KeyMetadata"]["Arn"])


def create_audit_stage(retention_days: int = 365) -> AuditStage:
    """The template's audit resources in this test's moto (call inside mock_aws)."""
    world = local_world()
    resources = template.load()["Resources"]
    s3, kms, events, sqs = (aws_state.client(name) for name in ("s3", "kms", "events", "sqs"))
    bucket = world.refs["AuditBucket"]
    s3.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
    s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": retention_days}}})
    key_properties = resources["AuditMacKey"]["Properties"]
    policy = resolve(key_properties["KeyPolicy"], template.load(), world)
    key = kms.create_key(KeySpec=key_properties["KeySpec"], KeyUsage=key_properties["KeyUsage"],
                         Policy=json.dumps(policy))["KeyMetadata"]["Arn"]
    bus = world.refs["AuditBus"]
    events.create_event_bus(Name=bus)
    subscriber = sqs.create_queue(QueueName="audit-subscriber")["QueueUrl"]
    subscriber_arn = sqs.get_queue_attributes(QueueUrl=subscriber, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name="everything", EventBusName=bus, EventPattern=json.dumps({"source": ["authgate"]}))
    events.put_targets(Rule="everything", EventBusName=bus, Targets=[{"Id": "q", "Arn": subscriber_arn}])
    return AuditStage(bucket=bucket, mac_key=key, bus=bus, unpublished_queue=world.refs["AuditUnpublishedQueue"],
                      subscriber_queue=subscriber)


def keep(stage: AuditStage, *events: tuple[Any, ...]) -> None:
    """Record `events` ((action, tenant, actor, target, outcome, reason, details)) and keep them in the stage's bucket
    as the audit function does, one stream record."""
    from authgate import audit
    from authgate_cli.local.functions import load_handler
    from tests.log_hygiene import LogCapture

    audit.bind("203.0.113.10", "Mozilla/5.0", "request-of-the-event")
    with LogCapture() as capture:
        for action, tenant, actor, target, outcome, reason, details in events:
            audit.record(action, tenant, actor=actor, target=target, outcome=outcome, reason=reason, details=details)
    load_handler("audit")({"Records": stage.records(capture.lines)}, None)
