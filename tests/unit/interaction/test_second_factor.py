"""interaction.second_factor: what a hand-off asks (required), and what a session lacks for it (missing)."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.interaction.handoff import HandOff
from authgate.interaction.second_factor import missing, required
from authgate.sessions.model import Session
from authgate.tenants.model import Tenant
from tests.demo import Demo

DEMO = Tenant("demo")


def session_of(username: str, acr: str = "password") -> Session:
    return Session(session_hash="h", sid="s", tenant_id="demo", user_id=f"usr_{username}", username=username,
                   auth_time=0, acr=acr, amr=("pwd",), created_at=0, last_active=0, expires_at=0)


@pytest.mark.parametrize(("handoff", "asked"), [
    (HandOff(tenant=DEMO), ("password", False)),
    (HandOff(tenant=DEMO, acr_values=("mfa", "password")), ("mfa", False)),
    (HandOff(tenant=DEMO, acr_values=("password", "mfa")), ("password", False)),
    (HandOff(tenant=DEMO, essential_acr=("mfa",)), ("mfa", True)),
    (HandOff(tenant=DEMO, essential_acr=("password", "mfa")), ("password", False)),
    (HandOff(tenant=DEMO._replace(require_mfa=True)), ("mfa", True)),
])
def test_what_a_hand_off_asks(handoff: HandOff, asked: tuple[str, bool]) -> None:
    assert required(handoff, handoff.tenant) == asked


def test_a_session_at_mfa_lacks_nothing_and_nothing_is_read(aws: None) -> None:
    """No tenant, factor or passkey read: the strongest level satisfies any hand-off."""
    asking = HandOff(tenant=Tenant(""), essential_acr=("mfa",))
    assert missing(asking, session_of("nobody", acr="mfa"), usable=lambda: pytest.fail("asked")) is None


def test_bob_with_a_one_time_code_gets_the_code_step(demo: Demo) -> None:
    assert missing(HandOff(tenant=DEMO, acr_values=("mfa",)), session_of("bob"), usable=lambda: False) == "code"
    assert missing(HandOff(tenant=DEMO), session_of("bob"), usable=lambda: False) is None


def test_a_person_without_a_factor_enrols_where_required_else_is_refused_or_stays_at_password(demo: Demo) -> None:
    alice = session_of("alice")
    assert missing(HandOff(tenant=DEMO._replace(require_mfa=True)), alice, usable=lambda: True) == "enrol"
    assert missing(HandOff(tenant=DEMO, acr_values=("mfa",)), alice, usable=lambda: True) is None
    with pytest.raises(ApiError) as unmet:
        missing(HandOff(tenant=DEMO, essential_acr=("mfa",)), alice, usable=lambda: True)
    assert unmet.value.code == "unmet_authentication_requirements"


def test_a_passkey_counts_only_where_the_issuer_can_use_it(demo: Demo, clock: ManualClock) -> None:
    from tests.functional.passkey_support import enrolled

    enrolled(clock)  # alice's only factor
    asking = HandOff(tenant=DEMO._replace(require_mfa=True))
    assert missing(asking, session_of("alice"), usable=lambda: True) == "code"
    assert missing(asking, session_of("alice"), usable=lambda: False) == "enrol"
