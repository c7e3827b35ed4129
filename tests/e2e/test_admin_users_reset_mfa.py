"""`authgate users reset-mfa` against a running `authgate serve`: the demo's bob loses his one-time code."""

from __future__ import annotations

import pytest

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack

pytestmark = pytest.mark.e2e


def test_reset_mfa_on_the_local_stack(local_stack: LocalStack) -> None:
    done = admin(local_stack, "users", "reset-mfa", "--tenant", "demo", "--username", "bob")
    assert (done.returncode, done.stdout.splitlines()[-1]) == (
        0, "second factors of bob in tenant demo removed (0 passkeys); sessions_valid_after set to now"), done.stderr
    missing = admin(local_stack, "users", "reset-mfa", "--tenant", "demo", "--username", "nobody")
    assert (missing.returncode, missing.stderr.splitlines()[-1]) == (
        2, "authgate users: no user 'nobody' in tenant 'demo' (see `authgate users list --tenant demo`)")
    bad = admin(local_stack, "users", "reset-mfa", "--tenant", "demo", "--username", "bob\x07")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines()[-1] == "authgate users: --username 'bob\\x07' contains the control character U+0007"
