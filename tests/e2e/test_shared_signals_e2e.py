"""The Shared Signals transmitter through a real `authgate serve`, seen by a receiver written from the
specifications (tests/e2e/ssf_receiver.py): streams created with an ssf:manage token, verification events pushed
(RFC 8935) to an HTTPS receiver on 127.0.0.1 and polled (RFC 8936), every SET verified with PyJWT against the JWKS."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.document_server import DocumentServer, document_server
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.flows import Flows, hidden_fields
from tests.e2e.ssf_receiver import (
    ACCOUNT_DISABLED,
    ACCOUNT_ENABLED,
    CREDENTIAL_CHANGE,
    SESSION_REVOKED,
    VERIFICATION,
    Receiver,
    accepting,
    polled,
    pushed,
)

ALICE, BOB = "usr_demoalice0000000000000", "usr_demobob000000000000000"

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


def test_a_receiver_hears_a_sign_out_a_password_change_a_disable_and_an_operators_revocation(
        stack: tuple[LocalStack, DocumentServer]) -> None:
    """Issue 40 item 6: a receiver learns of a revoked session, a changed credential and a disabled account
    within seconds, not at token expiry; each SET names the person by the issuer's `sub`."""
    serve, _ = stack
    rp = receiver(serve, "ssf-account-receiver")
    rp.create_stream([SESSION_REVOKED, CREDENTIAL_CHANGE, ACCOUNT_DISABLED, ACCOUNT_ENABLED])
    html = {"Accept": "text/html"}

    browser = Flows(serve.base_url)
    browser.authorize()  # alice signs in for demo-web: a session in this client's cookies
    confirm = browser.request("GET", "/oauth/logout", headers=html)
    assert confirm.status_code == 200 and "Sign out?" in confirm.text
    signed_out = time.monotonic()
    bye = browser.request("POST", "/oauth/logout", data={**hidden_fields(confirm.text), "confirm": "yes"},
                          headers=html)
    assert bye.status_code == 200 and not browser.session.cookies.get("authgate_session")
    (revoked,) = polled(rp, 1)
    assert time.monotonic() - signed_out < 10
    assert (revoked["sub_id"], list(revoked["events"])) == (subject(serve, ALICE), [SESSION_REVOKED])
    assert revoked["events"][SESSION_REVOKED]["initiating_entity"] == "user"

    page = browser.request("GET", "/oauth/account", headers=html)
    account = browser.request("POST", "/oauth/account", headers=html, data={
        **hidden_fields(page.text), "action": "sign_in", "tenant": "demo", "username": "alice",
        "password": "alice-password"})
    assert account.status_code == 200 and "Change the password" in account.text
    changed = browser.request("POST", "/oauth/account", headers=html, data={
        **hidden_fields(account.text), "action": "change", "current": "alice-password",
        "new_password": "alice-new-password-1", "confirm": "alice-new-password-1"})
    assert changed.status_code == 200 and "Password changed" in changed.text
    (credential,) = polled(rp, 1)
    assert (credential["sub_id"], list(credential["events"])) == (subject(serve, ALICE), [CREDENTIAL_CHANGE])
    assert {k: credential["events"][CREDENTIAL_CHANGE][k] for k in ("credential_type", "change_type")} == {
        "credential_type": "password", "change_type": "update"}

    assert admin(serve, "users", "disable", "--tenant", "demo", "--username", "bob").returncode == 0
    disabled = polled(rp, 2)  # the account disabled, and its sessions with it
    assert sorted((*c["events"], c["sub_id"]["sub"]) for c in disabled) == sorted(
        [(ACCOUNT_DISABLED, BOB), (SESSION_REVOKED, BOB)])
    assert admin(serve, "users", "enable", "--tenant", "demo", "--username", "bob").returncode == 0
    (enabled,) = polled(rp, 1)
    assert (enabled["sub_id"], enabled["events"]) == (subject(serve, BOB), {ACCOUNT_ENABLED: {}})
    assert admin(serve, "users", "revoke-sessions", "--tenant", "demo", "--username", "alice").returncode == 0
    (ended,) = polled(rp, 1)
    assert (ended["sub_id"], list(ended["events"])) == (subject(serve, ALICE), [SESSION_REVOKED])
    assert ended["events"][SESSION_REVOKED]["initiating_entity"] == "admin"
    browser.close()


def subject(serve: LocalStack, user_id: str) -> dict[str, str]:
    """RFC 9493 iss_sub of a user: this issuer and the user's `sub` (its stable id)."""
    return {"format": "iss_sub", "iss": serve.base_url, "sub": user_id}
