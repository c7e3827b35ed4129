"""admin.user_consents against moto: `authgate users consents` and `authgate users revoke-consent`."""

from __future__ import annotations

import argparse
import io

import pytest

from authgate.clock import ManualClock

ALICE = "usr_0123456789abcdefghijkl"


def ns(**kwargs: object) -> argparse.Namespace:
    base: dict[str, object] = {"tenant": "demo", "username": "alice", "json": False}
    base.update(kwargs)
    return argparse.Namespace(**base)


@pytest.fixture
def alice(aws: None, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("demo", "alice", "scrypt$not-a-real-hash", user_id=ALICE)


@pytest.mark.usefixtures("alice")
def test_consents_in_text_name_each_client_its_scopes_and_when() -> None:
    from authgate.stores.consents import ConsentStore
    from authgate_cli.admin.user_consents import list_consents

    out = io.StringIO()
    assert list_consents(ns(), out) == 0
    assert out.getvalue() == "no client allowed by alice in tenant demo\n"
    ConsentStore().remember("demo", ALICE, "demo-web", ("openid", "charges:read"), None)
    out = io.StringIO()
    assert list_consents(ns(), out) == 0
    # The clock fixture's START, 1_750_000_000, is 2025-06-15T15:06:40Z.
    assert out.getvalue().splitlines()[1].split() == ["demo-web", "charges:read", "openid", "(-)",
                                                      "2025-06-15T15:06:40Z", "0"]


@pytest.mark.usefixtures("alice", "demo")
def test_revoke_consent_refuses_an_unknown_client_and_one_never_allowed(capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.user_consents import revoke_consent

    out = io.StringIO()
    assert revoke_consent(ns(client_id="nosuch"), out) == 2
    assert capsys.readouterr().err == "authgate users: no client 'nosuch' (see `authgate clients list`)\n"
    assert revoke_consent(ns(client_id="demo-web"), out) == 2
    assert capsys.readouterr().err == (
        "authgate users: user 'alice' of tenant 'demo' has not allowed client 'demo-web' "
        "(see `authgate users consents --tenant demo --username alice`)\n")
    assert out.getvalue() == ""
