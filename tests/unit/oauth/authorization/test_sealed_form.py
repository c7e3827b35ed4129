"""oauth.authorization.sealed_form: the consent form's signed state and CSRF binding: round trip, tampering, expiry, secret sources."""

from __future__ import annotations

import boto3
import pytest

from authgate.clock import ManualClock
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
    binding = sealed_form.new_binding()
    blob, nonce = sealed_form.seal(REQUEST)
    assert sealed_form.unseal(blob, sealed_form.csrf_token(binding, nonce), binding) == (REQUEST, nonce)


@pytest.mark.parametrize("change", ["payload", "mac", "binding", "csrf", "expired", "missing"])
def test_anything_altered_is_refused(secret: None, clock: ManualClock, change: str) -> None:
    binding = sealed_form.new_binding()
    blob, nonce = sealed_form.seal(REQUEST)
    csrf = sealed_form.csrf_token(binding, nonce)
    data, mac = blob.split(".")
    args: tuple[str | None, str | None, str | None] = (blob, csrf, binding)
    if change == "payload":
        args = (data[:-2] + ("AA" if data[-2:] != "AA" else "BB") + "." + mac, csrf, binding)
    elif change == "mac":
        args = (data + "." + mac[::-1], csrf, binding)
    elif change == "binding":
        args = (blob, csrf, sealed_form.new_binding())
    elif change == "csrf":
        args = (blob, sealed_form.csrf_token(binding, "other-nonce"), binding)
    elif change == "expired":
        clock.advance(sealed_form.FORM_TTL)
    else:
        args = (None, csrf, binding)
    with pytest.raises(sealed_form.FormStateInvalid):
        sealed_form.unseal(*args)


def test_blob_mac_is_not_a_csrf_token(secret: None) -> None:
    # Purpose labels: the request MAC can never be replayed as a CSRF token.
    binding = sealed_form.new_binding()
    blob, _nonce = sealed_form.seal(REQUEST)
    with pytest.raises(sealed_form.FormStateInvalid):
        sealed_form.unseal(blob, blob.split(".")[1], binding)


def test_secret_from_secrets_manager(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    arn = boto3.client("secretsmanager").create_secret(Name="authgate/session", SecretString="k" * 64)["ARN"]
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET_ARN", arn)
    monkeypatch.setenv("AUTHGATE_STAGE", "staging")
    caches.reset()
    assert sealed_form.form_key() == b"k" * 64


def test_no_secret_outside_local_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.failures import as_api_error
    from authgate.stores.exceptions import SecretUnusable

    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET_ARN", raising=False)
    monkeypatch.setenv("AUTHGATE_STAGE", "production")
    caches.reset()
    with pytest.raises(SecretUnusable) as info:
        sealed_form.form_key()
    assert as_api_error(info.value).code == "internal_error"
    caches.reset()


def test_binding_cookie() -> None:
    assert sealed_form.binding_cookie("abc", "https://auth.example.com") == \
        "__Host-authgate_binding=abc; HttpOnly; SameSite=Strict; Path=/; Secure; Max-Age=2592000"
    assert sealed_form.binding_cookie("abc", "http://127.0.0.1:3000") == \
        "authgate_binding=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000"
