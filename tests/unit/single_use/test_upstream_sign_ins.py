"""single_use.upstream_sign_ins: a pending upstream sign-in sealed for its browser's cookie, bound to the state the
IdP echoes, living 10 minutes; an OpenID Connect state that names its tenant and IdP, sealed."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.single_use.upstream_sign_ins import (
    LIFETIME,
    PendingInvalid,
    PendingSignIn,
    named,
    new_state,
    opened,
    sealed,
)

KEY = b"k" * 32
OTHER_KEY = b"o" * 32


def _pending(started: int) -> PendingSignIn:
    return PendingSignIn("demo", "https://idp.example", "idp-a", "oidc", started, nonce="n", code_verifier="v",
                         max_age=60, fresh=True, action="authorize", fields=(("csrf", "c"), ("step", "upstream")),
                         leads_to="https://app.example", notes={"approved": False})


def test_a_cookie_opens_only_with_its_own_state_under_its_own_key(clock: ManualClock) -> None:
    pending = _pending(int(clock()))
    state = new_state(KEY, "demo", "idp-a", "oidc")
    cookie = sealed(KEY, pending, state)
    assert opened(KEY, cookie, state) == pending
    another = new_state(KEY, "demo", "idp-a", "oidc")
    for key, value, echoed in ((KEY, cookie, another), (OTHER_KEY, cookie, state), (KEY, cookie[:-2] + "AA", state),
                               (KEY, None, state), (KEY, "", state), (KEY, cookie, ""), (KEY, cookie, "s" * 701)):
        with pytest.raises(PendingInvalid):
            opened(key, value, echoed)


def test_a_pending_sign_in_lives_ten_minutes(clock: ManualClock) -> None:
    state = new_state(KEY, "demo", "democorp", "saml")
    cookie = sealed(KEY, _pending(int(clock())), state)
    clock.advance(LIFETIME - 1)
    assert opened(KEY, cookie, state).idp_id == "idp-a"
    clock.advance(1)
    with pytest.raises(PendingInvalid, match="expired"):
        opened(KEY, cookie, state)


def test_an_openid_connect_state_names_its_tenant_and_idp_and_a_relay_state_nothing() -> None:
    state = new_state(KEY, "demo", "idp-a", "oidc")
    assert named(KEY, state) == ("demo", "idp-a")
    assert state != new_state(KEY, "demo", "idp-a", "oidc")  # random each time
    assert named(OTHER_KEY, state) is None
    relay_state = new_state(KEY, "demo", "democorp", "saml")
    assert len(relay_state) == 43 and len(relay_state.encode()) <= 80  # SAML Bindings 3.4.3
    assert named(KEY, relay_state) is None
    assert named(KEY, "x" * 43) is None and named(KEY, "") is None
