"""account.signed_in: the account page's own sign-in cookie, which names its person only while it holds."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from authgate.account.signed_in import COOKIE_TTL, Account, cookie, issue, signed_in_user
from authgate.clock import ManualClock
from authgate.http.request import Request
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import Demo


@pytest.fixture
def site(demo: Demo, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    yield


def with_cookie(value: str) -> Request:
    raw = HttpRequest("GET", "/oauth/account", urlencode({}), [("Host", "127.0.0.1:3000"),
                                                                ("Cookie", f"authgate_account={value}")])
    return Request.from_event(build_event(raw, resource="/oauth/account", path_params=None))


@pytest.mark.usefixtures("site")
def test_a_cookie_on_its_own_names_a_person_whose_password_change_is_due_for_ten_minutes(clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    alice = Account("demo", "alice", "usr_demoalice0000000000000")
    assert signed_in_user(with_cookie(issue(alice, ""))) is None  # no change due: a session is needed
    clock.advance(1)  # a cookie of the very second of a change is dead (users.model.User.issued_in_time)
    UserStore().reset_password("demo", "alice", "temporary-pass")
    clock.advance(1)
    value = issue(alice, "")
    assert signed_in_user(with_cookie(value)) == alice
    clock.advance(COOKIE_TTL)
    assert signed_in_user(with_cookie(value)) is None


@pytest.mark.usefixtures("site")
def test_an_altered_cookie_or_one_of_a_session_not_in_this_browser_names_nobody(clock: ManualClock) -> None:
    value = issue(Account("demo", "alice"), "sid-of-another-browser")
    assert signed_in_user(with_cookie(value)) is None
    data, mac = value.split(".")
    assert signed_in_user(with_cookie(f"{data}.{mac[:-2]}AA")) is None
    assert signed_in_user(with_cookie("not-a-cookie")) is None


def test_the_cookie_is_strict_and_lives_ten_minutes() -> None:
    from tests.demo import ISSUER

    assert ISSUER.startswith("http://")  # the loopback stack: no __Host- prefix, no Secure
    assert cookie(with_cookie("x"), "v") == "authgate_account=v; HttpOnly; SameSite=Strict; Path=/; Max-Age=600"
    assert cookie(with_cookie("x"), "", expire=True).endswith("; Max-Age=0")
