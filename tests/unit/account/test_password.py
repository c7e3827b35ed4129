"""account.password: the account page's password change, refused before anything is checked when the new one is not
acceptable, and with the current password checked through every sign-in throttle (interaction.proof)."""

from __future__ import annotations

import pytest

from authgate.account.password import WRONG_CURRENT, Refused, changed
from authgate.account.signed_in import Account
from authgate.http.request import Request
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import Demo

ALICE = Account("demo", "alice")


def posted() -> Request:
    raw = HttpRequest("POST", "/oauth/account", "", [("Host", "127.0.0.1:3000")])
    return Request.from_event(build_event(raw, resource="/oauth/account", path_params=None))


@pytest.mark.parametrize(("fields", "why"), [
    ({"current": "alice-password", "new_password": "a-new-pass-phrase", "confirm": "another-pass-phrase"},
     "The two new passwords differ."),
    ({"current": "alice-password", "new_password": "alice-password", "confirm": "alice-password"},
     "The new password must differ from the current one."),
])
def test_a_new_password_that_is_not_acceptable_is_refused_before_the_current_one_is_checked(
        fields: dict[str, str], why: str) -> None:
    with pytest.raises(Refused) as refused:
        changed(posted(), ALICE, fields)  # no table at all: nothing is read
    assert refused.value.message == why


@pytest.mark.slow
def test_a_wrong_current_password_changes_nothing_and_the_right_one_changes_it(demo: Demo) -> None:
    from authgate.stores.users import UserStore

    new = {"new_password": "a-new-pass-phrase", "confirm": "a-new-pass-phrase"}
    with pytest.raises(Refused) as refused:
        changed(posted(), ALICE, {"current": "not-hers", **new})
    assert refused.value.message == WRONG_CURRENT
    assert UserStore().verify("demo", "alice", "alice-password").ok
    assert changed(posted(), ALICE, {"current": "alice-password", **new}) is True
    assert UserStore().verify("demo", "alice", "a-new-pass-phrase").ok
