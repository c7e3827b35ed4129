"""oauth.authorization.sealed_form: the consent form's signed state, bound to this browser: round trip, tampering, expiry."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.interaction.binding import csrf_token, new_binding
from authgate.interaction.sealed_state import FormStateInvalid
from authgate.oauth.authorization import sealed_form
from authgate.oauth.authorization.request import AuthorizationRequest

REQUEST = AuthorizationRequest(client_id="demo-web", tenant_id="demo", redirect_uri="https://app.example/cb",
                               redirect_uri_sent=True, scopes=("charges:read",), state="s",
                               code_challenge="c" * 43, code_challenge_method="S256")


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "unit-test-session-secret-0123456789")
    caches.reset()
    yield
    caches.reset()


def test_round_trip(secret: None) -> None:
    binding = new_binding()
    blob, nonce = sealed_form.seal(REQUEST, "password")
    sealed = sealed_form.unseal(blob, csrf_token(binding, nonce), binding)
    assert (sealed.request, sealed.step, sealed.nonce) == (REQUEST, "password", nonce)


@pytest.mark.parametrize("change", ["payload", "mac", "binding", "csrf", "expired", "missing"])
def test_anything_altered_is_refused(secret: None, clock: ManualClock, change: str) -> None:
    binding = new_binding()
    blob, nonce = sealed_form.seal(REQUEST, "password")
    csrf = csrf_token(binding, nonce)
    data, mac = blob.split(".")
    args: tuple[str | None, str | None, str | None] = (blob, csrf, binding)
    if change == "payload":
        args = (data[:-2] + ("AA" if data[-2:] != "AA" else "BB") + "." + mac, csrf, binding)
    elif change == "mac":
        args = (data + "." + mac[::-1], csrf, binding)
    elif change == "binding":
        args = (blob, csrf, new_binding())
    elif change == "csrf":
        args = (blob, csrf_token(binding, "other-nonce"), binding)
    elif change == "expired":
        clock.advance(sealed_form.FORM_TTL)
    else:
        args = (None, csrf, binding)
    with pytest.raises(FormStateInvalid):
        sealed_form.unseal(*args)


def test_blob_mac_is_not_a_csrf_token(secret: None) -> None:
    # Purpose labels: the request MAC can never be replayed as a CSRF token.
    binding = new_binding()
    blob, _nonce = sealed_form.seal(REQUEST, "password")
    with pytest.raises(FormStateInvalid):
        sealed_form.unseal(blob, blob.split(".")[1], binding)
