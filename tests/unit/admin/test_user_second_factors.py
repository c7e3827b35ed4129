"""`authgate users reset-mfa`: every second factor removed, sessions_valid_after set; bad input one line."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from authgate.clock import ManualClock
from authgate.users.model import SecondFactors

RFC_6238_KEY = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"


@pytest.fixture
def bob(aws: None, clock: ManualClock) -> None:
    """A tenant and bob, enrolled with RFC 6238's published key as the demo seed enrols him (no scrypt here)."""
    from authgate.stores.user_factors import UserFactorStore
    from authgate_cli.local.loaders import tenants

    tenants([{"tenant_id": "demo", "currencies": ["usd"]}])
    UserFactorStore().put_hash("demo", "bob", "not-a-password-hash")
    UserFactorStore().set_totp("demo", "bob", RFC_6238_KEY)


def test_the_demo_seed_gives_bob_the_rfc_6238_key(demo: object, clock: ManualClock) -> None:
    import pyotp

    from authgate.stores.factor_attempts import FactorAttempts
    from authgate.stores.user_factors import UserFactorStore

    store = UserFactorStore()
    assert store.factors("demo", "bob") == SecondFactors(True, False, 0, 0)
    assert FactorAttempts().verify_code("demo", "bob", pyotp.TOTP(RFC_6238_KEY).at(clock())).ok


def args(**kwargs: object) -> argparse.Namespace:
    return argparse.Namespace(**{"tenant": "demo", "username": "bob", "json": False, **kwargs})


def test_reset_mfa_removes_the_factors_and_sets_sessions_valid_after(bob: None, clock: ManualClock) -> None:
    import pyotp

    from authgate.stores.factor_attempts import FactorAttempts
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.user_factors import UserFactorStore
    from authgate.users.passkeys import Passkey
    from authgate_cli.admin.user_second_factors import reset_mfa

    store = UserFactorStore()
    for credential_id, owner in (("cred-1", "bob"), ("cred-2", "bob"), ("cred-3", "alice")):
        PasskeyStore().add(Passkey(credential_id, "demo", owner, "cose", 0, "Phone", 1))
    assert store.factors("demo", "bob") == SecondFactors(True, False, 0, 0)
    assert FactorAttempts().verify_code("demo", "bob", pyotp.TOTP(RFC_6238_KEY).at(clock())).ok
    out = io.StringIO()
    assert reset_mfa(args(json=True), out) == 0
    assert json.loads(out.getvalue()) == {"tenant_id": "demo", "username": "bob", "second_factors": [],
                                          "passkeys_removed": 2, "sessions_valid_after": int(clock())}
    assert store.factors("demo", "bob") == SecondFactors(False, False, 0, int(clock()))
    assert PasskeyStore().of_user("demo", "bob") == () and len(PasskeyStore().of_user("demo", "alice")) == 1
    text = io.StringIO()
    assert reset_mfa(args(), text) == 0
    assert text.getvalue() == ("second factors of bob in tenant demo removed (0 passkeys); sessions_valid_after set "
                               "to now\n")
    PasskeyStore().add(Passkey("cred-4", "demo", "bob", "cose", 0, "Phone", 1))
    text = io.StringIO()
    assert reset_mfa(args(), text) == 0
    assert text.getvalue() == ("second factors of bob in tenant demo removed (1 passkey); sessions_valid_after set "
                               "to now\n")


def test_reset_mfa_of_nobody_is_exit_2_with_the_command_that_lists_the_users(
        bob: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.user_second_factors import reset_mfa

    assert reset_mfa(args(username="nobody"), io.StringIO()) == 2
    assert capsys.readouterr().err == ("authgate users: no user 'nobody' in tenant 'demo' "
                                       "(see `authgate users list --tenant demo`)\n")


def test_reset_mfa_counts_the_passkeys_off_the_users_item(aws: None, clock: ManualClock) -> None:
    """The count of passkeys a sign-in's step reads from the user's item follows the removal: 0 after the reset."""
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.user_items import key, passkeys_held
    from authgate.stores.users import UserStore
    from authgate.users.passkeys import Passkey
    from authgate_cli.admin.user_second_factors import reset_mfa
    from authgate_cli.local.loaders import tenants

    tenants([{"tenant_id": "demo", "currencies": ["usd"]}])
    users = UserStore()
    users.put_hash("demo", "bob", "not-a-password-hash", overwrite=False)
    for credential_id in ("cred-1", "cred-2"):
        PasskeyStore().add(Passkey(credential_id, "demo", "bob", "cose", 0, "Phone", 1))

    def item() -> dict[str, object]:
        return dict(users.db.get_item(TableName=users.table, Key=key("demo", "bob"))["Item"])

    assert item()["passkeys"] == {"N": "2"} and passkeys_held(item()) is True
    assert reset_mfa(args(), io.StringIO()) == 0
    assert item()["passkeys"] == {"N": "0"} and passkeys_held(item()) is False
