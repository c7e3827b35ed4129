"""interaction.binding: the browser binding cookie and the key every form's MAC is made with (the stack's session
secret, from the environment locally or Secrets Manager on a stage)."""

from __future__ import annotations

import boto3
import pytest

from authgate.interaction import binding


def test_secret_from_secrets_manager(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    arn = boto3.client("secretsmanager").create_secret(Name="authgate/session", SecretString="k" * 64)["ARN"]
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET_ARN", arn)
    monkeypatch.setenv("AUTHGATE_STAGE", "staging")
    caches.reset()
    assert binding.form_key() == b"k" * 64


def test_no_secret_outside_local_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.failures import as_api_error
    from authgate.stores.exceptions import SecretUnusable

    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET_ARN", raising=False)
    monkeypatch.setenv("AUTHGATE_STAGE", "production")
    caches.reset()
    with pytest.raises(SecretUnusable) as info:
        binding.form_key()
    assert as_api_error(info.value).code == "internal_error"
    caches.reset()


def test_binding_cookie() -> None:
    assert binding.binding_cookie("abc", "https://auth.example.com") == \
        "__Host-authgate_binding=abc; HttpOnly; SameSite=Strict; Path=/; Secure; Max-Age=2592000"
    assert binding.binding_cookie("abc", "http://127.0.0.1:3000") == \
        "authgate_binding=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000"
