"""errors.model: ApiError takes status and title from the catalogue; internal detail stays out of the client's view."""

from __future__ import annotations

from authgate.errors.catalogue import lookup
from authgate.errors.model import ApiError, retry_after


def test_status_and_detail_default_to_the_catalogue_entry() -> None:
    error = ApiError("invalid_token")
    info = lookup("invalid_token")
    assert (error.status, error.detail, error.title) == (info.status, info.title, info.title)


def test_an_explicit_status_and_detail_win() -> None:
    error = ApiError("invalid_request", "The form body is not valid UTF-8.", status=413)
    assert (error.status, error.detail) == (413, "The form body is not valid UTF-8.")


def test_the_internal_detail_is_for_logs_only() -> None:
    error = ApiError("invalid_grant", "The refresh token is invalid.", internal="unknown refresh token")
    assert str(error) == "invalid_grant (400): The refresh token is invalid. [unknown refresh token]"
    assert "unknown refresh token" not in error.detail
    assert str(ApiError("invalid_grant", "x")) == "invalid_grant (400): x"


def test_retry_after_is_whole_non_negative_seconds() -> None:
    assert retry_after(ApiError("rate_limited"), 12).headers == {"Retry-After": "12"}
    assert retry_after(ApiError("rate_limited"), -3).headers == {"Retry-After": "0"}
