"""The account page's password change (docs/users.md, "The account page"): the current password again (a stolen
cookie alone changes nothing, interaction.proof), a new one that is acceptable (users.passwords.password_problem),
not the current one, typed twice. It ends every earlier session and refresh token (sessions_valid_after), the
page's own sign-in with them."""

from __future__ import annotations

import hmac

from authgate.account.signed_in import Account
from authgate.audit import person
from authgate.http.request import Request
from authgate.interaction import proof
from authgate.stores.users import UserStore
from authgate.users.errors import UserNotFound
from authgate.users.passwords import password_problem

WRONG_CURRENT = "The current password is incorrect, or this account is temporarily locked."


class Refused(Exception):
    """The change was not made: `message` says why (shown on the account page)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def changed(request: Request, account: Account, fields: dict[str, str]) -> bool:
    """Whether the person's password was changed (False: the account is gone, its page's sign-in with it); Refused
    with what to show when the new password is not acceptable or the current one is wrong."""
    current, new, confirm = fields.get("current", ""), fields.get("new_password", ""), fields.get("confirm", "")
    problem = password_problem(new, account.username)
    if not problem and new != confirm:
        problem = "The two new passwords differ."
    if not problem and hmac.compare_digest(new.encode("utf-8", "surrogatepass"),
                                           current.encode("utf-8", "surrogatepass")):
        problem = "The new password must differ from the current one."
    if problem:
        raise Refused(problem)
    if not proof.current_password(request, account.tenant_id, account.username, current):
        raise Refused(WRONG_CURRENT)
    try:
        user = UserStore().change_password(account.tenant_id, account.username, new)
    except UserNotFound:
        return False
    person.acted("password.changed", user.tenant_id, user.user_id, user.username)
    return True
