"""A sign-in session (single sign-on, OpenID Connect Core 2 `sid`): who signed in, when and how, and its validity.

The browser holds a random secret in the `authgate_session` cookie; the table holds only its
SHA-256 (stores.sessions), so a read of the table gives no one a session. `sid` is a second,
public random id: it goes into ID tokens (and logout tokens) and names the session to the
operator, and it never opens it. A session is valid while it is younger than its absolute
lifetime and was used within its idle timeout (settings.session_lifetime and session_idle, the
template's SessionLifetimeSeconds and SessionIdleSeconds: 12 h and 2 h by default), and the user
still stands (not disabled or deleted, and not signed out everywhere since: `generation`,
users.model.User.admits). `clients` are the client_ids that received a code
in it (the logout fan-out); `grants` the grants made in it without offline_access, revoked when
it ends (OpenID Connect Core 11).

A sign-in is a sequence of steps (the interaction): the password (interaction.sign_in), then a second factor
when one is required (interaction.second_factor), or a passkey alone (interaction.passkey_sign_in); a step that raises the level sets `acr`/`amr` and, when the
password is fresh, `auth_time` on the same session (same `sid`, a new secret: no session fixation).
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from authgate.records import Field
from authgate.settings import get_settings

COOKIE = "authgate_session"


class Session(NamedTuple):
    """One sign-in session (identity-design: SessionsTable)."""

    session_hash: str
    sid: str
    tenant_id: str
    user_id: str
    username: str
    auth_time: int
    acr: str
    amr: tuple[str, ...]
    created_at: int
    last_active: int
    expires_at: int
    clients: tuple[str, ...] = ()
    # The grants (code and refresh family ids) made in this session without offline_access: they end
    # with it (OpenID Connect Core 11).
    grants: tuple[str, ...] = ()
    # The user's session_generation at the sign-in: the session stands only while it is still the user's
    # (users.model.User.admits).
    generation: int = 0

    def live(self, now: int) -> bool:
        """Not past its absolute lifetime nor its idle timeout (moto never deletes TTL items: checked here)."""
        return now < self.expires_at and now < self.last_active + get_settings().session_idle


def user_key(tenant_id: str, user_id: str) -> str:
    """The UserSessions index key (and the remembered consents' partition): tenant#user_id."""
    return f"{tenant_id}#{user_id}"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


FIELDS = (
    Field("session_hash", "S"),
    Field("sid", "S"),
    Field("tenant_id", "S"),
    Field("user_id", "S"),
    Field("username", "S"),
    Field("auth_time", "N", 0),
    Field("acr", "S", ""),
    Field("amr", "STRINGS", ()),
    Field("created_at", "N", 0),
    Field("last_active", "N", 0),
    Field("expires_at", "N", 0),
    Field("clients", "SET", (), omit_empty=True),
    Field("grants", "SET", (), omit_empty=True),
    Field("generation", "N", 0, omit_empty=True),
)
