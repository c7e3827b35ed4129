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

A session opened by an upstream identity provider keeps which one and the upstream's own session
(`upstream`): what sign-out needs to end that session too (OpenID Connect RP-Initiated Logout 1.0's
id_token_hint, SAML Single Logout's NameID and SessionIndex) and what an upstream back-channel logout names
(its `sid`, or its `sub`): docs/federation.md#sign-out-through-the-identity-provider. A local sign-in has none.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, NamedTuple

from authgate.records import Field, Item, from_item, to_item
from authgate.settings import get_settings

COOKIE = "authgate_session"


class Upstream(NamedTuple):
    """The upstream identity provider's sign-in a session came from (never an email: who, at which IdP)."""

    issuer: str            # the IdP record's key: the OpenID Provider's issuer, or the SAML IdP's entity ID
    idp_id: str            # the IdP's id within the tenant (identity_providers.model.IdentityProvider.idp_id)
    protocol: str          # "oidc" | "saml"
    subject: str           # the linked identity's subject: OIDC `sub`, or the SAML NameID as "format|value"
    sid: str = ""          # the upstream's session: OIDC `sid` claim, or SAML SessionIndex ("" when not sent)
    name_id: str = ""      # SAML only: the NameID as "format|value" (federation.saml.logout_url's `subject`)
    id_token: str = ""     # OIDC only: the ID token, sealed (federation.secrets.seal_id_token), for id_token_hint

    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Its non-empty fields as the item's map holds them."""
        return tuple((name, value) for name, value in self._asdict().items() if value)

    @classmethod
    def of(cls, pairs: tuple[tuple[str, str], ...] | None) -> Upstream | None:
        """The Upstream a session item's map holds (None for a local sign-in's session)."""
        if not pairs:
            return None
        values = dict(pairs)
        return cls(**{name: str(values.get(name, "")) for name in cls._fields})


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
    # The upstream identity provider's sign-in, for a federated session (None: a local sign-in).
    upstream: Upstream | None = None

    def live(self, now: int) -> bool:
        """Not past its absolute lifetime nor its idle timeout (moto never deletes TTL items: checked here)."""
        return now < self.expires_at and now < self.last_active + get_settings().session_idle


def user_key(tenant_id: str, user_id: str) -> str:
    """The UserSessions index key (and the remembered consents' partition): tenant#user_id."""
    return f"{tenant_id}#{user_id}"


def upstream_key(tenant_id: str, issuer: str, upstream_sid: str) -> str:
    """The UpstreamSessions index key of a federated session: SHA-256 of (tenant, the IdP's issuer, the upstream's
    session id), hex; one length whatever the issuer's, and only for a session whose upstream sent a session id
    (an OIDC `sid`, a SAML SessionIndex): the index is sparse. An upstream back-channel logout naming that `sid`
    finds the sessions it started with one Query (stores.sessions.SessionStore.of_upstream)."""
    return hashlib.sha256(f"{tenant_id}\0{issuer}\0{upstream_sid}".encode("utf-8", "surrogatepass")).hexdigest()


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
    Field("upstream", "MAP", None, omit_empty=True),
)


def item_of(session: Session, **extra: dict[str, Any]) -> Item:
    """The session's item (its `upstream` as a map of strings), with `extra` attributes (an index key)."""
    values = {**session._asdict(), "upstream": session.upstream.pairs() if session.upstream else None}
    return {**to_item(FIELDS, values), **extra}


def session_of(item: Mapping[str, Any]) -> Session:
    """The session an item holds (items written before `upstream` existed read as local sign-ins)."""
    values = from_item(FIELDS, item)
    return Session(**{**values, "upstream": Upstream.of(values["upstream"])})
