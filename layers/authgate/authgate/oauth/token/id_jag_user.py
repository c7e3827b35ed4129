"""The person an ID-JAG speaks for, found as a federated sign-in's is (authgate.federation.identities).

In order: the identity linked to (the IdP's issuer, the assertion's `sub`); else, for an IdP record
with `user_match` "sub" (every record written before linked identities), the user whose username is
the `sub`, as before (never a federated-only user: made for some IdP's identity, it is found through
its link); else the federation's rules: an account claiming the assertion's email is the
person only when the IdP is trusted for verified emails (`trust_email`, or `user_match` "email")
and the assertion says `email_verified: true` (the link is then made), and an unknown person is
provisioned (with a link) when the IdP may create users. An agent cannot prove an account, so
"link required" is refused here. A disabled user is refused.

Cost: the link and the user come in the client's BatchGetItem (`keys`, before the client is read):
the user's key is the username this warm function last found for the identity, or the `sub` for
`user_match` sub; a wrong guess costs one GetItem more (the link's user), never a wrong user
(`find` checks the link's user_id). So a warm ID-JAG stays at the client's batch and the jti's
PutItem.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import records
from authgate.caches import BoundedCache, cached
from authgate.federation import identities
from authgate.federation.upstream import UpstreamIdentity
from authgate.oauth.token.identity_assertion import refused
from authgate.stores.linked_identities import LinkedIdentityStore, link_of
from authgate.stores.user_items import user_key
from authgate.stores.users import UserStore
from authgate.users.errors import UserNotFound
from authgate.users.model import FIELDS as USER_FIELDS
from authgate.users.model import User

if TYPE_CHECKING:
    from authgate.identity_providers.model import IdentityProvider
    from authgate.oauth.token.identity_assertion import IdJag
    from authgate.users.linked_identities import LinkedIdentity

# Identities whose username a warm function remembers (bounded: forged subjects may fill it, never grow it).
USERNAMES = 10_000
UNKNOWN = "The assertion's subject is not a user of this tenant."
# The tenant's administrator disabled the account (docs/users.md): no new grant, as for a sign-in.
DISABLED = "The assertion's subject is disabled in this tenant."


class Guess(NamedTuple):
    """What the batch read for an identity: (tenant, issuer, subject) and the username guessed for it."""

    tenant_id: str
    issuer: str
    subject: str
    username: str


@cached
def _usernames() -> BoundedCache[tuple[str, str, str], str]:
    """(tenant, issuer, subject) -> the username its link named when last found here."""
    return BoundedCache(USERNAMES)


def keys(tenant_id: str, idp: IdentityProvider, subject: str) -> tuple[dict[str, list[dict[str, Any]]], Guess | None]:
    """The keys to read with the client for the identity (issuer, subject) of `tenant_id` (its link, and its user
    as guessed), and the guess; nothing for an identity no link can hold."""
    links, users = LinkedIdentityStore(), UserStore()
    identity = (tenant_id, idp.issuer, subject)
    link_key = links.item_key(*identity)
    if link_key is None:
        return {}, None
    username = _usernames().peek(identity) or (subject if idp.user_match == "sub" else "")
    user = user_key(tenant_id, username) if username else None
    return ({links.table: [link_key], **({users.table: [user]} if user else {})},
            Guess(*identity, username if user else ""))


def find(jag: IdJag, tenant_id: str, prefetched: Mapping[str, list[dict[str, Any]]], guess: Guess | None) -> User:
    """The enabled user the assertion speaks for (the module's rules); `refused` (id_jag_user_unknown) otherwise.
    `prefetched` holds what the client's batch read for `guess`, when it is this identity's."""
    idp = jag.idp
    identity = (tenant_id, idp.issuer, jag.subject)
    read = guess is not None and (guess.tenant_id, guess.issuer, guess.subject) == identity
    users = UserStore()
    guessed = _user(prefetched.get(users.table, [])) if read and guess and guess.username else None
    links = LinkedIdentityStore()
    found = prefetched.get(links.table, [])
    link = (link_of(found[0]) if found else None) if read else links.get(*identity)
    resolution = _through_link(link, guessed) if link is not None else None
    if resolution is None and idp.user_match == "sub":
        # The record's word before linked identities: its sub is a username of the tenant. Not a federated-only
        # user: one was made for an identity of some IdP and is found through its link, and an unlinked one is
        # nobody's to take by name.
        user = guessed if read and guess and guess.username == jag.subject else users.get(tenant_id, jag.subject)
        if user is not None and not user.federated_only:
            resolution = identities.Resolution(identities.SIGNED_IN, user)
    if resolution is None:
        resolution = identities.unlinked(idp, _upstream(jag, tenant_id))
    return _signed_in(resolution, jag)


def _through_link(link: LinkedIdentity, guessed: User | None) -> identities.Resolution | None:
    user = guessed if guessed is not None and guessed.username == link.username else \
        UserStore().get(link.tenant_id, link.username)
    return identities.linked(link, user)


def _signed_in(resolution: identities.Resolution, jag: IdJag) -> User:
    """The resolution's user, or why the assertion speaks for nobody here."""
    internal = f"iss {jag.idp.issuer!r} {resolution.outcome} {resolution.reason}"
    if resolution.user is not None and resolution.signs_in:
        if resolution.user.disabled:
            raise refused("id_jag_user_unknown", DISABLED, internal=internal)
        if resolution.link is not None:
            _usernames().put((resolution.link.tenant_id, resolution.link.issuer, resolution.link.subject),
                             resolution.link.username)
        # A user_match sub user written before ids existed gets one: the token's `sub` (users.model.token_subject).
        try:
            return UserStore().with_user_id(resolution.user)
        except UserNotFound:
            raise refused("id_jag_user_unknown", UNKNOWN, internal=f"{internal}, deleted meanwhile") from None
    if resolution.reason == identities.DISABLED:
        raise refused("id_jag_user_unknown", DISABLED, internal=internal)
    if resolution.outcome == identities.LINK_REQUIRED:
        if resolution.user is None:
            raise refused("id_jag_user_unknown", "The assertion's email names more than one user of this tenant.",
                          internal=internal)
        raise refused("id_jag_user_unknown", "The assertion's email is a user's of this tenant, and its identity "
                                             "provider is not trusted to say so: the person links the account "
                                             "first (signing in through the identity provider), or the tenant "
                                             "trusts the provider's verified emails (--trust-email) and the "
                                             "assertion says email_verified.", internal=internal)
    if jag.idp.user_match == "email" and not isinstance(jag.claims.get("email"), str):
        raise refused("id_jag_user_unknown", "The assertion carries no email claim to find its user by.",
                      internal=internal)
    raise refused("id_jag_user_unknown", UNKNOWN, internal=internal)


def _upstream(jag: IdJag, tenant_id: str) -> UpstreamIdentity:
    """The assertion as the federation reads an upstream sign-in: its identity and the profile it states."""
    claims = jag.claims

    def text(name: str) -> str:
        value = claims.get(name)
        return value if isinstance(value, str) else ""

    return UpstreamIdentity(tenant_id, jag.idp.issuer, jag.subject, email=text("email"),
                            email_verified=claims.get("email_verified") is True, name=text("name"))


def _user(items: list[dict[str, Any]]) -> User | None:
    return User(**records.from_item(USER_FIELDS, items[0])) if items else None
