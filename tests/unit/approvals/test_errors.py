"""approvals.errors: why a CIBA poll gets no tokens (CIBA Core 11), each refusal its own answer."""

from __future__ import annotations

from authgate.approvals.errors import (
    LinkInvalid,
    PolledTooFast,
    PollRefused,
    RequestDenied,
    RequestExpired,
    RequestPending,
    RequestUnknown,
)
from authgate.failures import api_error


def test_each_refusal_is_answered_with_its_ciba_error() -> None:
    """RFC 6749 5.2 and CIBA Core 11: all 400, one error code per reason."""
    answers = {cls.reason: api_error(cls()) for cls in (RequestUnknown, RequestPending, PolledTooFast, RequestExpired,
                                                        RequestDenied)}
    assert {reason: (error.status, error.code) for reason, error in answers.items() if error is not None} == {
        "unknown": (400, "invalid_grant"), "pending": (400, "authorization_pending"),
        "slow_down": (400, "slow_down"), "expired": (400, "expired_token"), "denied": (400, "access_denied")}
    assert all(issubclass(cls, PollRefused) for cls in (RequestUnknown, RequestPending, PolledTooFast))


def test_a_used_or_unknown_approval_link_is_its_own_page() -> None:
    error = api_error(LinkInvalid())
    assert error is not None and (error.status, error.code) == (400, "approval_link_invalid")
