"""authgate_cli.local.serve: the start-up banner says what a new user needs to sign in."""

from __future__ import annotations

from authgate_cli.local.seed import DEMO_SEED, read_seed
from authgate_cli.local.serve import banner


def test_the_banner_shows_each_users_password_and_published_one_time_code_key() -> None:
    lines = banner("http://127.0.0.1:3000", read_seed(DEMO_SEED), "http://127.0.0.1:4566", None).splitlines()
    users = lines[lines.index("Users (username / password):") + 1:][:3]
    assert users == ["  alice / alice-password  (tenant demo)",
                     "  bob / bob-password  (tenant demo; one-time code key GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ)",
                     ("  olivia / olivia-password  (tenant operators; one-time code key "
                      "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP; console role owner)")]
    assert ("Console: http://127.0.0.1:3000/console  (the operators' console: sign in as an operator below, "
            "docs/console.md)") in lines
