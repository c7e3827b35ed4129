"""A signed-in person proves again what they hold, before a change to their account (docs/users.md, "The account
page"; docs/strong-authentication.md): their current password, a one-time or recovery code, one of their passkeys.

Each goes through the same rules as at a sign-in: the password through every sign-in throttle (interaction.sign_in),
a code through the second factor's own (stores.factor_attempts), a passkey's assertion with user verification
answering a challenge of its own purpose (interaction.passkey_sign_in). A flow asks; it never checks one itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.interaction.passkey_sign_in import of_person
from authgate.interaction.sign_in import sign_in
from authgate.stores.factor_attempts import FactorAttempts

if TYPE_CHECKING:
    from authgate.http.request import Request

# The longest code kept, as the sign-in form's code field keeps it (a recovery code is 19 characters).
MAX_CODE = 64


def current_password(request: Request, tenant_id: str, username: str, password: str) -> bool:
    """Whether `password` is the person's, through every sign-in throttle (a failure counts as a failed sign-in)."""
    return sign_in(tenant_id, username, password, request.source_ip).ok


def code(tenant_id: str, username: str, typed: str) -> bool:
    """Whether `typed` is a right one-time or recovery code of the person, through the second factor's throttle."""
    return FactorAttempts().verify_code(tenant_id, username, typed.strip()[:MAX_CODE]).ok


def passkey(request: Request, tenant_id: str, username: str, credential: str) -> bool:
    """Whether `credential` is an assertion of one of the person's passkeys, with user verification, answering a
    challenge of this page issued to them (purpose `confirm`: no sign-in spends it, nor it a sign-in's)."""
    return of_person(request, tenant_id, username, credential, "confirm") is not None
