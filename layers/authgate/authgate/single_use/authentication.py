"""What a sign-in established about a person (OIDC Core 2 auth_time, acr, amr; RFC 8176), as codes and grants carry it.

A code records it when the person approves, the refresh family keeps it, and every ID token of
the grant states it unchanged (OIDC Core 12.2: the same sub and auth_time on refresh). `sid`
names the sign-in session ("" when the grant was made outside one).
"""

from __future__ import annotations

from typing import NamedTuple

from authgate.assurance import PASSWORD, PASSWORD_AMR
from authgate.records import Field


class Authentication(NamedTuple):
    """Who signed in, when, and how (OIDC Core 2)."""

    user_id: str
    auth_time: int
    acr: str = PASSWORD
    amr: tuple[str, ...] = PASSWORD_AMR
    sid: str = ""
    # The user's session_generation at the sign-in (users.model.User.admits).
    generation: int = 0


# Its attributes in a code's or a refresh token's item; items written before OpenID Connect read as empty.
FIELDS = (
    Field("user_id", "S", "", omit_empty=True),
    Field("auth_time", "N", 0, omit_empty=True),
    Field("acr", "S", "", omit_empty=True),
    Field("amr", "STRINGS", (), omit_empty=True),
    Field("sid", "S", "", omit_empty=True),
    Field("generation", "N", 0, omit_empty=True),
)


def of(values: dict[str, object]) -> Authentication | None:
    """The Authentication a record's values hold (None for a grant made before it was recorded)."""
    user_id = values.pop("user_id", "")
    rest = {f.name: values.pop(f.name, f.missing) for f in FIELDS[1:]}
    if not user_id:
        return None
    return Authentication(str(user_id), **rest)  # type: ignore[arg-type]


def values(authentication: Authentication | None) -> dict[str, object]:
    """The record values of `authentication` (empty ones for None)."""
    if authentication is None:
        return {f.name: f.missing for f in FIELDS}
    return authentication._asdict()
