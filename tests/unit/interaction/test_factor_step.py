"""interaction.factor_step: the second-factor page a session below the hand-off gets, prompt=none's refusal, and a
step whose ticket no longer holds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.interaction import messages
from authgate.interaction.factor_step import posted, step_up
from authgate.interaction.handoff import Again, Back, HandOff, Voice
from authgate.sessions.model import Session
from authgate.tenants.model import Tenant
from tests.demo import Demo
from tests.unit.interaction.conftest import PageRequest

BOB = Session(session_hash="h", sid="s", tenant_id="demo", user_id="usr_demobob000000000000000", username="bob",
              auth_time=0, acr="password", amr=("pwd",), created_at=0, last_active=0, expires_at=0)


@pytest.fixture
def site(demo: Demo, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    yield


def hand_off(logged: list[str], **asked: object) -> HandOff:
    back = Back(action="device", state=lambda step: [("action", step), ("nonce", "n"), ("csrf", "c")],
                voice=Voice(asker="TV", factor_lead="<p>Your organisation requires a second factor.</p>",
                            goal="To approve TV", approved="TV", button="Approve"),
                notes={"approved": True}, log=logged.append)
    return HandOff(tenant=Tenant("demo"), back=back, words=messages.DEVICE)._replace(**asked)


@pytest.mark.usefixtures("site")
def test_a_session_below_the_hand_off_gets_the_page_posting_back_to_the_flow(page_request: PageRequest) -> None:
    logged: list[str] = []
    assert step_up(page_request(), hand_off(logged), BOB, totp=True) is None  # password is all it asks
    page = step_up(page_request(), hand_off(logged, acr_values=("mfa",)), BOB, totp=True)
    assert isinstance(page, Response) and page.status == 200
    assert '<form method="post" action="device" autocomplete="off">' in page.body
    assert ('<input type="hidden" name="csrf" value="c">\n<input type="hidden" name="factor_ticket" value="'
            in page.body)
    assert "<p>Your organisation requires a second factor.</p>" in page.body and ">Approve</button>" in page.body
    assert logged == []


@pytest.mark.usefixtures("site")
def test_prompt_none_refuses_the_page_and_says_why(page_request: PageRequest) -> None:
    logged: list[str] = []
    with pytest.raises(ApiError) as refused:
        step_up(page_request(), hand_off(logged, acr_values=("mfa",), prompt="none"), BOB, totp=True)
    assert (refused.value.code, refused.value.detail, logged) == (
        "login_required", messages.PROMPT_NONE_CODE, ["code_required"])


@pytest.mark.usefixtures("site")
def test_a_step_without_its_session_or_ticket_ends_in_the_flows_words(page_request: PageRequest) -> None:
    logged: list[str] = []
    fields = {"factor_ticket": "not-a-ticket", "csrf": "c", "code": "123456"}
    assert posted(page_request(list(fields.items())), hand_off(logged), fields, None) == Again(
        messages.DEVICE.step_ended)
    assert posted(page_request(list(fields.items())), hand_off(logged), fields, BOB) == Again(
        messages.DEVICE.step_ended)
    assert logged == ["factor_step_invalid", "factor_step_invalid"]
