"""interaction.sign_in: a person's sign-in through every throttle (RFC 6749 10.10)."""

from __future__ import annotations

import pytest

from authgate.errors import ApiError
from authgate.interaction.sign_in import sign_in
from authgate.settings import get_settings
from tests.demo import Demo


@pytest.mark.slow
def test_a_correct_password_signs_in_and_a_wrong_one_looks_like_an_unknown_user(demo: Demo) -> None:
    assert sign_in("demo", "alice", "alice-password", "192.0.2.1") == (
        True, "ok", "alice", "usr_demoalice0000000000000", False, 0, False, False, "", False)
    assert sign_in("demo", "alice", "wrong", "192.0.2.1")[:2] == (False, "invalid")
    assert sign_in("demo", "nobody", "wrong", "192.0.2.1")[:2] == (False, "invalid")
    assert sign_in("no-such-tenant", "alice", "alice-password", "192.0.2.1")[:2] == (False, "invalid")


@pytest.mark.slow
def test_an_address_over_its_failures_is_refused_before_any_password_is_checked(
        demo: Demo, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_AUTH_FAILURE_IP", "3")
    caches.reset()
    quota = get_settings().limits.auth_failure_ip
    for i in range(quota):
        assert not sign_in("demo", f"user-{i}", "wrong", "192.0.2.9").ok
    with pytest.raises(ApiError) as refused:
        sign_in("demo", "alice", "alice-password", "192.0.2.9")  # the right password, from that address
    assert (refused.value.code, refused.value.status, refused.value.oauth_error) == (
        "rate_limited", 429, "temporarily_unavailable")
    assert refused.value.headers["RateLimit-Policy"].startswith('"failed-auth-user"')
    assert sign_in("demo", "alice", "alice-password", "192.0.2.10").ok  # another address is not limited
