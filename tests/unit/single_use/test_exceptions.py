"""single_use: why a code, a pushed request or a refresh token could not be used, and the families callers catch."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.single_use import codes as c
from authgate.single_use import pushed_requests as p
from authgate.single_use import refresh_tokens as r


@pytest.mark.parametrize(("kind", "reason"), [
    (c.CodeError, "invalid"), (c.CodeNotFound, "unknown"), (c.CodeExpired, "expired"),
    (c.CodeAlreadyUsed, "already_used"),
])
def test_code_errors_say_why_and_keep_the_record(kind: type[c.CodeError], reason: str) -> None:
    record: Any = object()
    error = kind(record)
    assert (error.reason, str(error), error.record, isinstance(error, c.CodeError)) == (reason, reason, record, True)
    assert kind().record is None


@pytest.mark.parametrize(("kind", "reason"), [
    (p.PushedRequestError, "invalid"), (p.PushedRequestNotFound, "unknown"), (p.PushedRequestUsed, "already_used"),
    (p.PushedRequestExpired, "expired"), (p.PushedRequestOfAnotherClient, "another_client"),
])
def test_pushed_request_errors_say_why(kind: type[p.PushedRequestError], reason: str) -> None:
    assert (kind.reason, issubclass(kind, p.PushedRequestError)) == (reason, True)


@pytest.mark.parametrize(("reused", "family_revoked", "message"), [
    (True, False, "reused"), (True, True, "reused"), (False, True, "family revoked"), (False, False, "not active"),
])
def test_a_failed_rotation_says_which_rule(reused: bool, family_revoked: bool, message: str) -> None:
    error = r.RotationFailed(reused, family_revoked)
    assert (str(error), error.reused, error.family_revoked) == (message, reused, family_revoked)
