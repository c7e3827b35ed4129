"""stores.sealing_key: the configured secret, else Secrets Manager's (read once), else a local process's own."""

from __future__ import annotations

import boto3
import pytest

from authgate import caches
from authgate.failures import as_api_error
from authgate.stores.exceptions import SecretUnusable
from authgate.stores.sealing_key import sealing_key


def test_a_configured_secret_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "x" * 32)
    caches.reset()
    assert sealing_key() == b"x" * 32


def test_the_stacks_secret_is_read_once(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    arn = boto3.client("secretsmanager").create_secret(Name="s", SecretString="y" * 40)["ARN"]
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET_ARN", arn)
    caches.reset()
    assert sealing_key() == b"y" * 40
    boto3.client("secretsmanager").put_secret_value(SecretId=arn, SecretString="z" * 40)
    assert sealing_key() == b"y" * 40  # cached for the warm container


def test_a_short_or_missing_secret_is_an_internal_error_not_a_weak_key(aws: None,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    arn = boto3.client("secretsmanager").create_secret(Name="short", SecretString="too-short")["ARN"]
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET_ARN", arn)
    caches.reset()
    with pytest.raises(SecretUnusable) as short:
        sealing_key()
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET_ARN")
    monkeypatch.setenv("AUTHGATE_STAGE", "production")
    caches.reset()
    with pytest.raises(SecretUnusable) as missing:
        sealing_key()
    # A deployment fault, not the store's to answer: failures.ERRORS makes it the client's 500.
    short_error, missing_error = as_api_error(short.value), as_api_error(missing.value)
    assert (short_error.code, short_error.internal) == ("internal_error", "session secret is shorter than 32 characters")
    assert missing_error.internal == "no session secret configured (AUTHGATE_SESSION_SECRET_ARN)"


def test_a_local_process_without_one_makes_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET", raising=False)
    monkeypatch.delenv("AUTHGATE_SESSION_SECRET_ARN", raising=False)
    monkeypatch.setenv("AUTHGATE_STAGE", "local")
    caches.reset()
    first = sealing_key()
    assert len(first) == 32 and sealing_key() == first
    caches.reset()
    assert sealing_key() != first
