"""Record the AWS answers one request got, then answer the same calls from memory (botocore Stubber).

Recording hooks `after-call` on the shared clients (authgate.aws) and keeps each parsed
response, errors included (a failed conditional write is part of the sequence). Replaying queues
those responses on a Stubber, which answers at `before-call`: parameters are still validated and
serialized by botocore, but nothing is sent and nothing is parsed. That is what "I/O stubbed"
means in the figures: the CPU of the project's code and the libraries it drives, no network.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# Every service a function calls (the audit function: S3, KMS, EventBridge; SQS for what the bus refuses).
SERVICES = ("dynamodb", "secretsmanager", "kms", "s3", "events", "sqs")


@dataclass
class Call:
    service: str
    operation: str
    response: dict[str, Any]


@dataclass
class Recording:
    calls: list[Call] = field(default_factory=list)

    def services(self) -> list[str]:
        return sorted({c.service for c in self.calls})

    def count(self, service: str = "dynamodb") -> int:
        return sum(1 for c in self.calls if c.service == service)

    def operations(self, service: str = "dynamodb") -> list[str]:
        return [c.operation for c in self.calls if c.service == service]


def clients() -> dict[str, Any]:
    """The process's cached clients, built now if need be (building them is not I/O)."""
    from authgate import aws

    return {service: getattr(aws, service)() for service in SERVICES}


@contextmanager
def recording(clients_by_service: dict[str, Any] | None = None) -> Iterator[Recording]:
    """`with recording() as rec:` every call the clients make lands in `rec.calls` (default: authgate's)."""
    rec = Recording()
    hooks = []
    for service, client in (clients_by_service or clients()).items():
        def seen(parsed: dict[str, Any], model: Any, service: str = service, **_: Any) -> None:
            if hasattr(parsed.get("Body"), "read"):
                # An object's body (S3 GetObject) is a stream: kept as its bytes, and read again from them.
                data = parsed["Body"].read()
                parsed["Body"] = _stream(data)
                rec.calls.append(Call(service, model.name, {**parsed, "Body": data}))
                return
            rec.calls.append(Call(service, model.name, parsed))

        uid = f"bench-record-{id(rec)}-{service}"
        # botocore names events by the hyphenized service id ("secrets-manager").
        event = f"after-call.{client.meta.service_model.service_id.hyphenize()}"
        client.meta.events.register(event, seen, unique_id=uid)
        hooks.append((client, event, uid))
    try:
        yield rec
    finally:
        for client, event, uid in hooks:
            client.meta.events.unregister(event, unique_id=uid)


class Replay:
    """Stubbers on the clients (default: authgate's shared ones); `queue(recording)` before each
    request answers its calls."""

    def __init__(self, services: list[str] | None = None, clients: dict[str, Any] | None = None) -> None:
        from botocore.stub import Stubber

        if clients is None:
            from authgate import aws

            clients = {s: getattr(aws, s)() for s in (services or SERVICES)}
        self.stubbers = {s: Stubber(client) for s, client in clients.items()}

    def activate(self) -> None:
        for stubber in self.stubbers.values():
            stubber.activate()

    def queue(self, rec: Recording) -> None:
        from botocore import xform_name

        for call in rec.calls:
            stubber = self.stubbers[call.service]
            method = xform_name(call.operation)
            response = dict(call.response)
            if isinstance(response.get("Body"), bytes):
                response["Body"] = _stream(response["Body"])
            meta = response.pop("ResponseMetadata", {})
            error = response.pop("Error", None)
            if error is None:
                stubber.add_response(method, response)
            else:
                stubber.add_client_error(method, service_error_code=error.get("Code", ""),
                                         service_message=error.get("Message", ""),
                                         http_status_code=meta.get("HTTPStatusCode", 400),
                                         modeled_fields=response or None)

    def assert_drained(self) -> None:
        for stubber in self.stubbers.values():
            stubber.assert_no_pending_responses()

    def deactivate(self) -> None:
        for stubber in self.stubbers.values():
            stubber.deactivate()


def _stream(data: bytes) -> Any:
    """A body as botocore hands one over (a stream of `data`)."""
    import io

    from botocore.response import StreamingBody

    return StreamingBody(io.BytesIO(data), len(data))
