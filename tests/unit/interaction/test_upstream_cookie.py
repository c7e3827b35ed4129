"""interaction.upstream_cookie: the cookie a pending upstream sign-in lives in -- kept 10 minutes, cleared, read back,
and never one a browser would not keep."""

from __future__ import annotations

import pytest

from authgate.interaction import upstream_cookie
from tests.unit.interaction.conftest import PageRequest


def test_the_cookie_is_kept_read_back_and_cleared(page_request: PageRequest) -> None:
    request = page_request()
    assert upstream_cookie.kept(request, "v1.sealed-value") == (
        "authgate_upstream=v1.sealed-value; HttpOnly; SameSite=Lax; Path=/; Max-Age=600")
    assert upstream_cookie.cleared(request) == "authgate_upstream=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"
    assert upstream_cookie.sealed(page_request(cookie="authgate_upstream=v1.sealed-value")) == "v1.sealed-value"
    assert upstream_cookie.sealed(page_request(cookie="authgate_upstream=")) is None
    assert upstream_cookie.sealed(request) is None


def test_a_pending_sign_in_no_browser_would_keep_is_refused(page_request: PageRequest) -> None:
    request = page_request()
    assert upstream_cookie.kept(request, "v" * upstream_cookie.MAX_VALUE).startswith("authgate_upstream=v")
    with pytest.raises(upstream_cookie.TooLarge):
        upstream_cookie.kept(request, "v" * (upstream_cookie.MAX_VALUE + 1))
    assert upstream_cookie.sealed(page_request(cookie="authgate_upstream=" + "v" * 4000)) is None
