"""single_use.errors: why a code, a pushed request or a refresh token could not be used, and the families callers catch."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.single_use import errors as e


@pytest.mark.parametrize(("kind", "reason"), [
    (e.CodeError, "invalid"), (e.CodeNotFound, "unknown"), (e.CodeExpired, "expired"),
    (e.CodeAlreadyUsed, "already_used"),
])
def test_code_errors_say_why_and_keep_the_record(kind: type[e.CodeError], reason: str) -> None:
    record: Any = object()
    error = kind(record)
    assert (error.reason, str(error), error.record, isinstance(error, e.CodeError)) == (reason, reason, record, True)
    assert kind().record is None


@pytest.mark.parametrize(("kind", "reason"), [
    (e.PushedRequestError, "invalid"), (e.PushedRequestNotFound, "unknown"), (e.PushedRequestUsed, "already_used"),
    (e.PushedRequestExpired, "expired"), (e.PushedRequestOfAnotherClient, "another_client"),
])
def test_pushed_request_errors_say_why(kind: type[e.PushedRequestError], reason: str) -> None:
    assert (kind.reason, issubclass(kind, e.PushedRequestError)) == (reason, True)


@pytest.mark.parametrize(("reused", "family_revoked", "message"), [
    (True, False, "reused"), (True, True, "reused"), (False, True, "family revoked"), (False, False, "not active"),
])
def test_a_failed_rotation_says_which_rule(reused: bool, family_revoked: bool, message: str) -> None:
    error = e.RotationFailed(reused, family_revoked)
    assert (str(error), error.reused, error.family_revoked) == (message, reused, family_revoked)
