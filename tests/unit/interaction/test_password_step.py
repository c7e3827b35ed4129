"""interaction.password_step: the sign-in form's one attempt, each flow's words for its refusals, the forced change,
a sign-in at mfa in one form, and how the step ends (interaction.outcome)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.interaction import messages
from authgate.interaction.handoff import Again, Authentication, Back, HandOff, Voice
from authgate.interaction.password_step import signed_in
from authgate.tenants.model import Tenant
from tests.demo import Demo
from tests.functional.second_factor_support import bob_code
from tests.unit.interaction.conftest import PageRequest

ALICE, BOB = "usr_demoalice0000000000000", "usr_demobob000000000000000"


Logged = list[str]


@pytest.fixture
def logged() -> Logged:
    """The outcomes the interaction names to the flow's log (Back.log)."""
    return []


@pytest.fixture
def demo_tenant(demo: Demo, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tenant]:
    from authgate import caches
    from authgate.stores.tenants import TenantStore

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    tenant = TenantStore().get("demo")
    assert tenant is not None
    yield tenant


def hand_off(tenant: Tenant, logged: Logged, **asked: object) -> HandOff:
    back = Back(action="authorize", state=lambda step: [("request_blob", f"blob-{step}"), ("csrf", "c")],
                voice=Voice(asker="Demo", factor_lead="<p>To continue.</p>", goal="To continue", approved="it"),
                log=logged.append)
    return HandOff(tenant=tenant, back=back)._replace(**asked)


def test_no_username_or_password_is_asked_again_in_the_flows_words_without_an_attempt(
        demo_tenant: Tenant, logged: Logged, page_request: PageRequest) -> None:
    for handoff in (hand_off(demo_tenant, logged), hand_off(demo_tenant, logged, words=messages.ACCOUNT)):
        assert signed_in(page_request([]), handoff, {"username": "alice"}) == Again(handoff.words.missing)
        assert signed_in(page_request([]), handoff, {"password": "x", "username": "  "}) == Again(handoff.words.missing)
    assert logged == []


@pytest.mark.slow
def test_a_wrong_password_is_one_answer_in_the_flows_words_and_logged(demo_tenant: Tenant, logged: Logged,
                                                                     page_request: PageRequest) -> None:
    fields = {"username": "alice", "password": "not-it", "tenant": "demo"}
    assert signed_in(page_request([]), hand_off(demo_tenant, logged), fields) == Again(messages.WRONG_CREDENTIALS)
    organisation = hand_off(Tenant(""), logged, words=messages.SIGN_IN_ORGANISATION)
    assert signed_in(page_request([]), organisation, fields) == Again(messages.WRONG_ORGANISATION_OR_CREDENTIALS)
    assert logged == ["login_invalid", "login_invalid"]


@pytest.mark.slow
def test_the_right_password_opens_a_session_at_password_after_the_flows_admission(
        demo_tenant: Tenant, logged: Logged, page_request: PageRequest, clock: ManualClock) -> None:
    admitted: list[str] = []
    handoff = hand_off(Tenant(""), logged, admit=admitted.append, code="offered")
    signed = signed_in(page_request([]), handoff, {"username": "alice", "password": "alice-password",
                                                   "tenant": "demo", "code": "123456"})
    assert isinstance(signed, Authentication) and signed.session is not None
    assert (signed.tenant_id, signed.user_id, signed.username, signed.acr, signed.amr, signed.auth_time) == (
        "demo", ALICE, "alice", "password", ("pwd",), int(clock()))  # no mfa asked: the code is not read
    assert signed.cookie is not None and signed.cookie.startswith("authgate_session=")
    assert (admitted, logged) == (["demo"], [])
    with pytest.raises(ApiError) as hinted:
        signed_in(page_request([]), hand_off(demo_tenant, logged, hinted_sub=BOB),
                  {"username": "alice", "password": "alice-password"})
    assert (hinted.value.code, logged) == ("login_required", ["login_required"])


@pytest.mark.slow
def test_a_password_an_operator_reset_asks_the_change_or_resumes_the_flow_that_changes_it(
        demo_tenant: Tenant, logged: Logged, page_request: PageRequest) -> None:
    from authgate.stores.users import UserStore

    UserStore().reset_password("demo", "alice", "temporary-pass")
    fields = {"username": "alice", "password": "temporary-pass"}
    form = signed_in(page_request([]), hand_off(demo_tenant, logged), fields)
    assert isinstance(form, Response) and form.status == 200
    assert 'name="change_ticket"' in form.body and 'value="blob-change"' in form.body
    resumed = signed_in(page_request([]), hand_off(demo_tenant, logged, change="resume", session=False), fields)
    assert isinstance(resumed, Authentication)
    assert (resumed.change_due, resumed.session, resumed.username) == (True, None, "alice")


@pytest.mark.slow
def test_a_sign_in_at_mfa_in_one_form_takes_the_password_and_code_together(
        demo_tenant: Tenant, logged: Logged, page_request: PageRequest, clock: ManualClock) -> None:
    approval = hand_off(demo_tenant, logged, code="required", session=False, words=messages.APPROVAL,
                        essential_acr=("mfa",), hinted_sub=BOB, username="bob")
    assert signed_in(page_request([]), approval, {"password": "bob-password"}) == Again(messages.APPROVAL.wrong)
    signed = signed_in(page_request([]), approval, {"password": "bob-password", "code": bob_code(clock)})
    assert isinstance(signed, Authentication)
    assert (signed.user_id, signed.acr, signed.amr, signed.session, signed.recorded.sid) == (
        BOB, "mfa", ("pwd", "otp", "mfa"), None, "")
    # alice holds no second factor: told so once her password is right, and only then.
    for_alice = approval._replace(hinted_sub=ALICE, username="alice")
    assert signed_in(page_request([]), for_alice, {"password": "alice-password", "code": "1"}) == Again(
        messages.APPROVAL.no_factor)
    assert signed_in(page_request([]), for_alice, {"password": "wrong", "code": "1"}) == Again(messages.APPROVAL.wrong)
