"""interaction.handoff: what a flow resumes with, and what a code, a device approval or a backchannel decision
records of it (OIDC Core 2)."""

from __future__ import annotations

from authgate.interaction.handoff import NO_BACK, Authentication, HandOff
from authgate.interaction.messages import SIGN_IN
from authgate.sessions.model import Session
from authgate.single_use import authentication
from authgate.tenants.model import Tenant

SESSION = Session(session_hash="h", sid="sid-1", tenant_id="demo", user_id="usr_1", username="alice", auth_time=100,
                  acr="mfa", amr=("otp", "pwd", "mfa"), created_at=100, last_active=100, expires_at=200, generation=3)


def test_a_sign_in_in_a_session_records_the_sessions_sid() -> None:
    signed = Authentication(tenant_id="demo", user_id="usr_1", username="alice", acr="mfa", amr=("otp", "pwd", "mfa"),
                            auth_time=100, generation=3, session=SESSION, cookie="authgate_session=s")
    assert signed.recorded == authentication.Authentication(user_id="usr_1", auth_time=100, acr="mfa",
                                                            amr=("otp", "pwd", "mfa"), sid="sid-1", generation=3)


def test_a_sign_in_without_a_session_records_none() -> None:
    signed = Authentication(tenant_id="demo", user_id="usr_1", username="bob", acr="mfa", amr=("pwd", "otp", "mfa"),
                            auth_time=7)
    assert signed.recorded == authentication.Authentication(user_id="usr_1", auth_time=7, acr="mfa",
                                                            amr=("pwd", "otp", "mfa"), sid="", generation=0)
    assert (signed.cookie, signed.recovery, dict(signed.notes), signed.change_due) == (None, (), {}, False)


def test_a_hand_off_asks_for_a_password_sign_in_of_its_tenant_unless_told() -> None:
    handoff = HandOff(tenant=Tenant("demo"))
    assert (handoff.back, handoff.code, handoff.session, handoff.change, handoff.words, handoff.admit) == (
        NO_BACK, "none", True, "ask", SIGN_IN, None)
    assert (handoff.acr_values, handoff.essential_acr, handoff.max_age, handoff.hinted_sub, handoff.username) == (
        (), (), None, None, None)
    assert NO_BACK.state("password") == []
