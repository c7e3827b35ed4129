"""The Shared Signals transmitter through a real `authgate serve`, seen by a receiver written from the
specifications (tests/e2e/ssf_receiver.py): streams created with an ssf:manage token, verification events pushed
(RFC 8935) to an HTTPS receiver on 127.0.0.1 and polled (RFC 8936), every SET verified with PyJWT against the JWKS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.document_server import DocumentServer, document_server
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.ssf_receiver import (
    CREDENTIAL_CHANGE,
    SESSION_REVOKED,
    VERIFICATION,
    Receiver,
    accepting,
    pushed,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalStack, DocumentServer]]:
    tmp: Path = tmp_path_factory.mktemp("ssf")
    with document_server(tmp) as endpoint, running_stack(
            tmp / "serve", "--allow-loopback-client-metadata", env_extra={"SSL_CERT_FILE": str(endpoint.ca)}) as serve:
        resource = f"{serve.base_url}/ssf"
        done = admin(serve, "resources", "create", resource, "--scopes", "ssf:manage")
        assert done.returncode == 0, done.stderr
        yield serve, endpoint


def receiver(serve: LocalStack, client_id: str) -> Receiver:
    """A receiver's client, registered by an operator as docs/shared-signals.md says."""
    resource = f"{serve.base_url}/ssf"
    done = admin(serve, "clients", "create", "--client-id", client_id, "--tenant", "demo", "--grant",
                 "client_credentials", "--resource-scopes", f"{resource}=ssf:manage", "--json")
    assert done.returncode == 0, done.stderr
    return Receiver(serve.base_url, client_id, json.loads(done.stdout)["client_secret"], resource)


def test_a_push_receiver_gets_a_verification_event(stack: tuple[LocalStack, DocumentServer]) -> None:
    serve, endpoint = stack
    rp = receiver(serve, "ssf-push-receiver")
    url = accepting(endpoint, "/ssf/push")
    stream = rp.create_stream([SESSION_REVOKED, CREDENTIAL_CHANGE], push_to=url)
    assert stream["delivery"] == {"method": "urn:ietf:rfc:8935", "endpoint_url": url}
    assert stream["events_delivered"] == [SESSION_REVOKED, CREDENTIAL_CHANGE]
    read = rp.read_stream()
    assert (read.status_code, read.headers["Cache-Control"], read.json()) == (200, "no-store", stream)

    assert rp.verify("push-state").status_code == 204
    (token,) = pushed(endpoint, "/ssf/push")
    claims = rp.checked(token)
    assert (claims["sub_id"], claims["events"]) == (
        {"format": "opaque", "id": stream["stream_id"]}, {VERIFICATION: {"state": "push-state"}})


def test_a_poll_receiver_polls_and_acknowledges_a_verification_event(
        stack: tuple[LocalStack, DocumentServer]) -> None:
    serve, _ = stack
    rp = receiver(serve, "ssf-poll-receiver")
    stream = rp.create_stream([SESSION_REVOKED])
    assert stream["delivery"] == {"method": "urn:ietf:rfc:8936", "endpoint_url": f"{serve.base_url}/ssf/poll"}
    assert rp.verify("poll-state").status_code == 204
    answer = rp.poll()  # a long poll: the SET arrives within it
    ((jti, token),) = answer["sets"].items()
    claims = rp.checked(token)
    assert (claims["jti"], claims["events"]) == (jti, {VERIFICATION: {"state": "poll-state"}})
    assert rp.poll(ack=[jti], immediately=True) == {"sets": {}, "moreAvailable": False}
