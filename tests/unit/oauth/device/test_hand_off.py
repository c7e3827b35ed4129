"""oauth.device.hand_off: what the verification page hands the interaction, and the state of each step's form."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from authgate.clients.model import Client
from authgate.http.request import Request
from authgate.interaction import messages
from authgate.oauth.device.hand_off import ACTIONS, hand_off
from authgate.single_use.device_codes import DeviceAuthorization
from authgate_cli.local.events import HttpRequest, build_event

RECORD = DeviceAuthorization(code_hash="c", device_hash="d", client_id="demo-tv", tenant_id="demo", scope="charges:read",
                             state="pending", interval=5, next_poll_at=0, issued_at=0, expires_at=600)
TV = Client(client_id="demo-tv", tenant_id="demo", environment="local", client_type="public", secret_hash=None,
            redirect_uris=(), grant_types=("urn:ietf:params:oauth:grant-type:device_code",), scopes=(),
            name='Living-room "TV"')
CODE = "BCDFGHJKLM"


@pytest.fixture
def site(aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    yield


def request() -> Request:
    raw = HttpRequest("POST", "/oauth/device", "", [("Host", "127.0.0.1:3000"), ("Cookie", "authgate_binding=" + "b" * 43),
                                                    ("Content-Type", "application/x-www-form-urlencoded")],
                      urlencode({}).encode())
    return Request.from_event(build_event(raw, resource="/oauth/device", path_params=None))


@pytest.mark.usefixtures("site")
def test_each_steps_form_posts_its_action_the_user_code_and_a_nonce_naming_the_step() -> None:
    state = hand_off(request(), RECORD, CODE, TV, {}).back.state
    for step, action in ACTIONS.items():
        fields = dict(state(step))
        assert list(fields)[:4] == ["action", "user_code", "nonce", "csrf"]
        assert (fields["action"], fields["user_code"], fields["nonce"].split(".")[0]) == (action, "BCDFG-HJKLM", step)
    assert dict(state("passkey"))["decision"] == "passkey"


@pytest.mark.usefixtures("site")
def test_a_form_of_the_posted_step_keeps_its_csrf_fields_a_steps_ticket_is_bound_to() -> None:
    posted = {"nonce": "factor.abc", "csrf": "token-of-the-step", "action": "factor"}
    state = hand_off(request(), RECORD, CODE, TV, posted).back.state
    assert dict(state("factor"))["csrf"] == "token-of-the-step"
    assert dict(state("decision"))["csrf"] != "token-of-the-step"


@pytest.mark.usefixtures("site")
def test_the_hand_off_is_the_requests_tenant_in_the_device_pages_words() -> None:
    handoff = hand_off(request(), RECORD, CODE, TV, {})
    assert (handoff.tenant.tenant_id, handoff.words, handoff.code, handoff.session, handoff.back.action) == (
        "demo", messages.DEVICE, "none", True, "device")
    assert handoff.back.voice.goal == ('To approve <strong class="client">Living-room &quot;TV&quot;</strong> (code '
                                       '<strong class="user-code">BCDFG-HJKLM</strong>)')
    assert (handoff.back.voice.button, handoff.back.voice.passkey_title) == ("Approve", "Connect a device")
