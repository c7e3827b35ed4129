"""How strongly a person signed in: `acr` values, `amr` values (RFC 8176 2) and the sign-in's time.

Two authentication context classes (OIDC Core 2, `acr`): `password`, a password alone, and `mfa`,
a password and a second factor or a passkey with user verification. Codes and refresh families
record the `Assurance` of the sign-in that made the grant; access tokens of the grant carry its
`acr` and `auth_time` (RFC 9068 2.2.1), and a refresh never raises them.
"""

from __future__ import annotations

from typing import NamedTuple

PASSWORD = "password"
MFA = "mfa"


class Assurance(NamedTuple):
    """The sign-in behind a grant: when it happened (epoch seconds), its acr and its amr."""

    auth_time: int
    acr: str
    amr: tuple[str, ...]


def password_sign_in(now: int) -> Assurance:
    """A sign-in with a password alone, now (RFC 8176 2: `pwd`)."""
    return Assurance(now, PASSWORD, ("pwd",))
