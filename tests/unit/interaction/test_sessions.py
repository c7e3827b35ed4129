"""interaction.sessions: when a browser's session is not enough for a hand-off (OIDC Core 3.1.2.1), and what it
established."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.interaction.handoff import HandOff
from authgate.interaction.sessions import authentication_of, needs_sign_in
from authgate.sessions.model import Session
from authgate.tenants.model import Tenant
from tests.conftest import START

SESSION = Session(session_hash="h", sid="sid-1", tenant_id="demo", user_id="usr_alice", username="alice",
                  auth_time=START - 60, acr="password", amr=("pwd",), created_at=START - 60, last_active=START,
                  expires_at=START + 3600, generation=2)
ASKED = HandOff(tenant=Tenant("demo"))


@pytest.mark.parametrize(("handoff", "needed"), [
    (ASKED, False),
    (ASKED._replace(prompt="login"), True),
    (ASKED._replace(prompt="consent login"), True),
    (ASKED._replace(prompt="consent"), False),
    (ASKED._replace(hinted_sub="usr_alice"), False),
    (ASKED._replace(hinted_sub="usr_bob"), True),
    (ASKED._replace(max_age=60), False),
    (ASKED._replace(max_age=59), True),
])
def test_a_session_is_enough_unless_the_hand_off_asks_for_a_sign_in(clock: ManualClock, handoff: HandOff,
                                                                     needed: bool) -> None:
    assert needs_sign_in(handoff, SESSION) is needed
    assert needs_sign_in(handoff, None) is True


def test_what_a_session_established_is_what_the_flow_resumes_with() -> None:
    signed = authentication_of(SESSION, "authgate_session=new")
    assert (signed.tenant_id, signed.user_id, signed.username, signed.acr, signed.amr, signed.auth_time,
            signed.generation, signed.session, signed.cookie) == (
        "demo", "usr_alice", "alice", "password", ("pwd",), START - 60, 2, SESSION, "authgate_session=new")
    assert signed.recorded.sid == "sid-1"
