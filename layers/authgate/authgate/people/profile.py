"""What an operator may give a person: a tenant and username, a name, an email, a new password (docs/users.md).

`authgate users` and the console's forms check here, with the same reasons (operators.input: they name the
command's options). An email names one person of its tenant (a forgotten password finds the person by it). A
password an operator sets is at least MIN_PASSWORD characters, at most MAX_PASSWORD, without control characters,
and not the username (NIST 800-63B 5.1.1.2).
"""

from __future__ import annotations

import unicodedata

from authgate.operators.input import InvalidInput, email, identifier, text

MIN_PASSWORD = 8
MAX_PASSWORD = 1024
MAX_USERNAME = 128


def person(tenant_id: str, username: str) -> None:
    """A tenant id and a username as they can be stored."""
    identifier(tenant_id, "--tenant")
    text(username, "--username", limit=MAX_USERNAME)


def profile(name: str | None, address: str | None, email_verified: bool | None, *, creating: bool) -> None:
    """The profile's fields given (None, or "" on a change: removed); a verified email needs an email on creation."""
    if name:
        text(name, "--name")
    if address:
        email(address)
    if email_verified and not address and creating:
        raise InvalidInput("--email-verified needs --email")


def email_free(tenant_id: str, username: str, address: str | None) -> None:
    """`address` is no other person's email in the tenant."""
    from authgate.stores.users import UserStore

    if not address:
        return
    others = [u.username for u in UserStore().by_email(tenant_id, address) if u.username != username]
    if others:
        raise InvalidInput(f"the email {address!r} is already user {others[0]!r}'s in tenant {tenant_id!r}")


def new_password(password: str, username: str) -> None:
    """A password an operator sets for `username`."""
    if len(password) < MIN_PASSWORD:
        raise InvalidInput(f"the password must have at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise InvalidInput(f"the password must have at most {MAX_PASSWORD} characters")
    if any(unicodedata.category(c) == "Cc" for c in password):
        raise InvalidInput("the password contains a control character")
    if password == username:
        raise InvalidInput("the password must not be the username")
