"""console.session: the console's cookie names a live session of an operator whose user item still admits it; a
forged, malformed or ended one opens nothing; the cookie lasts until the session ends, and is removed at sign-out."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest

from authgate.clock import ManualClock
from authgate.console.session import cleared, cookie, signed_in
from authgate.http.request import Request
from tests.functional.console_support import OLIVIA_ID, console_event, operator_session

MAX_AGE = 43200


def _request(cookie_header: str | None) -> Request:
    return Request.from_event(console_event("GET", "/console", cookie=cookie_header))


@pytest.fixture
def olivia(aws: None, clock: ManualClock) -> str:
    """The Cookie of olivia's console session, opened now (an operator's user item and the session item)."""
    from authgate.stores.users import UserStore

    UserStore().put_hash("operators", "olivia", "not-a-hash", user_id=OLIVIA_ID)
    return operator_session()


def test_a_live_session_names_its_operator(olivia: str) -> None:
    found = signed_in(_request(olivia))
    assert found is not None
    assert (found.operator.username, found.operator.user.user_id, found.operator.roles) == ("olivia", OLIVIA_ID, ())
    assert (found.session.username, found.session.tenant_id, found.session.expires_at - found.session.auth_time) == (
        "olivia", "operators", MAX_AGE)


def test_the_cookie_lasts_until_the_session_ends(olivia: str, clock: ManualClock) -> None:
    found = signed_in(_request(olivia))
    assert found is not None
    clock.advance(1000)
    assert cookie(_request(None), "olivia", "the-secret", found.session) == (
        f"authgate_console=b2xpdmlh.the-secret; HttpOnly; SameSite=Lax; Path=/; Max-Age={MAX_AGE - 1000}")
    clock.advance(MAX_AGE)
    assert cookie(_request(None), "olivia", "the-secret", found.session).endswith("; Max-Age=0")  # never negative
    assert cleared(_request(None)) == "authgate_console=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"


def test_a_session_opens_nothing_once_it_has_ended(olivia: str, clock: ManualClock) -> None:
    clock.advance(MAX_AGE - 1)
    assert signed_in(_request(olivia)) is not None
    clock.advance(1)
    assert signed_in(_request(olivia)) is None


@pytest.mark.parametrize("forge", [
    lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),  # another secret: no session has it
    lambda c: c.replace("b2xpdmlh.", "Ym9i."),  # the secret under bob's name
    lambda c: c.replace("b2xpdmlh.", ""),  # no username
    lambda c: c.replace("b2xpdmlh.", "!!!."),  # not base64url
    lambda c: c.replace("b2xpdmlh.", "_w."),  # not UTF-8
    lambda c: c + "x" * 1024,  # too long to be ours
    lambda c: c.split(".")[0] + ".short",  # a secret no session can have
    lambda c: "__Host-" + c,  # the stage's name on the loopback stack: not read
], ids=["secret", "username", "no-username", "not-base64url", "not-utf8", "too-long", "short-secret", "host-name"])
def test_a_forged_or_malformed_cookie_opens_nothing(olivia: str, forge: Callable[[str], str]) -> None:
    assert signed_in(_request(forge(olivia))) is None
    assert signed_in(_request(None)) is None


def test_a_well_formed_cookie_after_a_malformed_one_is_read(olivia: str) -> None:
    assert signed_in(_request(f"authgate_console=nodot; {olivia}")) is not None


def test_the_operator_item_decides_at_each_request(olivia: str, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    store = UserStore()
    store.put_hash("operators", "bob", "not-a-hash", user_id="usr_bob")
    bob = operator_session("bob", "usr_bob")
    store.set_disabled("operators", "bob", True)
    assert signed_in(_request(bob)) is None  # disabled
    store.delete("operators", "olivia")
    store.put_hash("operators", "olivia", "not-a-hash", user_id="usr_another_olivia")
    assert signed_in(_request(olivia)) is None  # a username that came back is someone new


def test_ending_the_operators_sessions_ends_the_console_session(olivia: str, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    clock.advance(5)
    from authgate import clock as runtime

    UserStore().end_sessions("operators", "olivia", runtime.seconds())
    assert signed_in(_request(olivia)) is None


def test_a_session_of_another_person_under_this_name_opens_nothing(olivia: str) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("operators", "bob", "not-a-hash", user_id=OLIVIA_ID)  # even one of the same user id
    secret = olivia.split(".", 1)[1]
    as_bob = f"authgate_console={base64.urlsafe_b64encode(b'bob').rstrip(b'=').decode()}.{secret}"
    assert signed_in(_request(as_bob)) is None
