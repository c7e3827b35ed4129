"""Bob's and alice's second factors in the demo seed, for the sign-in tests (docs/strong-authentication.md)."""

from __future__ import annotations

from typing import Any

import pyotp

from authgate.clock import ManualClock
from tests.functional.authorize_support import Browser, Page, web_params

BOB = "usr_demobob000000000000000"
ALICE = "usr_demoalice0000000000000"
# RFC 6238's own test key: bob's TOTP secret in the demo seed.
BOB_KEY = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
SCOPE = "openid charges:read"
MFA = {"scope": SCOPE, "nonce": "n", "acr_values": "mfa"}


def bob_code(clock: ManualClock, offset: int = 0) -> str:
    """Bob's TOTP code at the clock's time (plus `offset` seconds)."""
    return str(pyotp.TOTP(BOB_KEY).at(int(clock()) + offset))


def wrong_code(clock: ManualClock) -> str:
    """A six-digit code that is not bob's at the clock's time."""
    return "000000" if bob_code(clock) != "000000" else "111111"


def password_session(browser: Browser, username: str = "bob", user_id: str = BOB, age: int = 0) -> Any:
    """A password session of the user, `age` seconds old, in `browser` (its cookie set); the demo client approved."""
    from authgate import clock
    from authgate.stores.consents import ConsentStore
    from authgate.stores.sessions import SessionStore

    secret, session = SessionStore().create(tenant_id="demo", user_id=user_id, username=username, acr="password",
                                            amr=("pwd",), auth_time=clock.seconds() - age, generation=0)
    ConsentStore().remember("demo", user_id, "demo-web", tuple(SCOPE.split()), None)
    browser.get(web_params())  # the browser's binding cookie
    browser.cookie = f"{browser.cookie}; authgate_session={secret}"
    return session


def factor_failures(username: str = "bob") -> int:
    """The user's count of wrong codes since the last right one (users.factor_throttle)."""
    from authgate import records
    from authgate.stores.user_items import key
    from authgate.stores.users import UserStore

    return records.number(UserStore().find(key("demo", username)) or {}, "factor_failures")


def give(browser: Browser, page: Page, code: str) -> dict[str, Any]:
    """The second-factor step's form posted with `code`; the cookies it sets kept."""
    result = browser.post(list(page.hidden().items()) + [("code", code)])
    browser.keep_cookies(result)
    return result
