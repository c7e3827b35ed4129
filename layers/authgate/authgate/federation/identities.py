"""Which of the tenant's users a person an identity provider vouches for is: accounts that stay one person.

The person is (tenant, IdP issuer, upstream subject), never an email alone (users.linked_identities).
`resolve(idp, upstream)` answers, in order:
- signed in: the identity is linked to an enabled user (one GetItem of the link, one of the user);
  linked to a disabled user: refused, as a disabled account's password sign-in is;
- linked just now: no link, an account of the tenant claims the email, the IdP is trusted for verified
  emails (`trust_email`) and says this one is verified, and the account's own email is verified too
  (else a stranger who registered someone's email first would get their sign-ins: pre-account
  takeover) — the identity is linked to it (a conditional write) and signs in;
- link required: an account claims the email and the rule above does not hold (the email unverified,
  the IdP not trusted for it, or several accounts claim it): the identity is linked only once the
  person proves the account (its password or passkey, in the same browser), then `link()`. An
  attacker's IdP account that claims alice's email never signs in as alice;
- provisioned: no account claims the email and the IdP may create users (`create_users`): a new
  federated-only user (no password) and its link, in one transaction. Its username is the verified
  email's local part (when the IdP is trusted for it), else the upstream subject, reduced to
  letters, digits and `.-_` and made unique with a suffix;
- refused: no account, and the IdP may not create one: the person is told to ask the tenant's
  administrator (`NOT_PROVISIONED`).
A link whose user is gone, or is another person under the same username now, is stale: it is removed
and the identity resolves as unlinked. An IdP record with `user_match` "email" (written for ID-JAGs
before `trust_email` existed) is read as trusted for verified emails: its administrator chose to
match by email, and the email must now be verified.
"""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Literal, NamedTuple

from authgate import clock
from authgate.federation.errors import UpstreamRefused
from authgate.stores.faults import unavailable
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.stores.users import UserStore
from authgate.users.errors import LinkRefused, UserExists
from authgate.users.linked_identities import LinkedIdentity, linkable
from authgate.users.model import User, new_user_id

if TYPE_CHECKING:
    from authgate.federation.upstream import UpstreamIdentity
    from authgate.identity_providers.model import IdentityProvider

Outcome = Literal["signed_in", "linked", "provisioned", "link_required", "refused"]
SIGNED_IN: Outcome = "signed_in"
LINKED: Outcome = "linked"
PROVISIONED: Outcome = "provisioned"
LINK_REQUIRED: Outcome = "link_required"
REFUSED: Outcome = "refused"
# Why a resolution is refused (for logs, and the page the interaction renders):
# no account and the IdP may not create one ("ask your administrator");
NOT_PROVISIONED = "not_provisioned"
# the account is disabled, or was deleted meanwhile (answered as a disabled account's sign-in is).
DISABLED = "disabled"

# A derived username: at most this long before its suffix, of these characters.
MAX_USERNAME_BASE = 48
_NOT_IN_USERNAME = re.compile(r"[^a-z0-9._-]+")
# Tries at a unique username: the base, then with a short random hex suffix twice, then a long one.
SUFFIXES = (0, 4, 4, 12)


class Resolution(NamedTuple):
    """What an upstream identity is here: `outcome`; the user it signs in as (signed_in, linked, provisioned) or
    the account that claims its email (link_required: None when several do); `reason` when refused; its link."""

    outcome: Outcome
    user: User | None = None
    reason: str = ""
    link: LinkedIdentity | None = None

    @property
    def signs_in(self) -> bool:
        """Whether the person is signed in as `user` now (nothing left to prove)."""
        return self.outcome in (SIGNED_IN, LINKED, PROVISIONED)


def trusts_email(idp: IdentityProvider) -> bool:
    """Whether the IdP's verified emails say whose account it is: `trust_email`, or the ID-JAG `user_match` email."""
    return idp.trust_email or idp.user_match == "email"


def resolve(idp: IdentityProvider, upstream: UpstreamIdentity,
            read: tuple[LinkedIdentity | None] | None = None) -> Resolution:
    """The user `upstream` signs in as, or what stands in the way (the module's rules, in their order). `read`: the
    identity's link as a batch read found it (one GetItem here otherwise); a link of another identity is not it."""
    _check(idp, upstream)
    link = read[0] if read is not None else LinkedIdentityStore().get(upstream.tenant_id, upstream.issuer,
                                                                      upstream.subject)
    if link is not None and (link.tenant_id, link.issuer, link.subject) != (upstream.tenant_id, upstream.issuer,
                                                                            upstream.subject):
        link = LinkedIdentityStore().get(upstream.tenant_id, upstream.issuer, upstream.subject)
    if link is not None:
        found = linked(link, UserStore().get(link.tenant_id, link.username))
        if found is not None:
            return found
    return unlinked(idp, upstream)


def linked(link: LinkedIdentity, user: User | None) -> Resolution | None:
    """The resolution of a found link, given its user as read by username (None when the link is stale: it is
    removed, and the identity resolves as unlinked)."""
    if user is None or user.user_id != link.user_id:
        LinkedIdentityStore().unlink(link)
        return None
    if user.disabled:
        return Resolution(REFUSED, reason=DISABLED, link=link)
    return Resolution(SIGNED_IN, user, link=link)


def unlinked(idp: IdentityProvider, upstream: UpstreamIdentity) -> Resolution:
    """The resolution of an identity no link names (after `_check`): by its email, else provisioned, else refused."""
    claimed = UserStore().by_email(upstream.tenant_id, upstream.email) if upstream.email else []
    if len(claimed) == 1 and claimed[0].email_verified and trusts_email(idp) and upstream.email_verified:
        return _link_verified_email(claimed[0], upstream)
    if claimed:
        return Resolution(LINK_REQUIRED, claimed[0] if len(claimed) == 1 else None)
    if not idp.create_users:
        return Resolution(REFUSED, reason=NOT_PROVISIONED)
    return _provision(idp, upstream)


def link(tenant_id: str, user_id: str, idp: IdentityProvider, upstream: UpstreamIdentity, *,
         username: str) -> LinkedIdentity:
    """Link `upstream` to the account the person just proved (its password or passkey, in this browser): one
    conditional write, so of two links of one identity at once only one is made. The link, also when it was made
    already to this user; LinkRefused when the identity is another user's or the account is disabled or gone."""
    _check(idp, upstream)
    if upstream.tenant_id != tenant_id:
        raise UpstreamRefused("tenant_mismatch", internal=f"upstream of {upstream.tenant_id!r} for {tenant_id!r}")
    made = LinkedIdentity(tenant_id, upstream.issuer, upstream.subject, user_id, username, clock.seconds(), "proof")
    store = LinkedIdentityStore()
    try:
        store.link(made)
    except LinkRefused:
        existing = store.get(tenant_id, upstream.issuer, upstream.subject)
        if existing is not None and existing.user_id == user_id:
            return existing
        raise
    return made


def _check(idp: IdentityProvider, upstream: UpstreamIdentity) -> None:
    """The upstream identity is one of this IdP's (never resolve IdP B's answer against IdP A: a mix-up), with a
    subject a link can hold."""
    if upstream.tenant_id != idp.tenant_id or upstream.issuer != idp.issuer:
        raise UpstreamRefused("idp_mismatch", internal=f"upstream {upstream.issuer[:200]!r} of "
                                                       f"{upstream.tenant_id!r} for {idp.issuer[:200]!r}")
    if not linkable(upstream.issuer, upstream.subject):
        raise UpstreamRefused("subject_invalid", internal=f"subject of {len(upstream.subject)} characters")


def _link_verified_email(user: User, upstream: UpstreamIdentity) -> Resolution:
    """Link to the account whose verified email a trusted IdP verified too; the winner's link when another
    sign-in of the same identity linked it first; refused when the account was disabled or deleted meanwhile."""
    made = LinkedIdentity(user.tenant_id, upstream.issuer, upstream.subject, user.user_id, user.username,
                          clock.seconds(), "verified_email")
    if user.disabled:
        return Resolution(REFUSED, reason=DISABLED)
    try:
        LinkedIdentityStore().link(made)
    except LinkRefused:
        return _after_race(upstream)
    return Resolution(LINKED, user, link=made)


def _provision(idp: IdentityProvider, upstream: UpstreamIdentity) -> Resolution:
    """A new federated-only user for `upstream` and its link, in one transaction each try (module docstring)."""
    now = clock.seconds()
    verified = upstream.email_verified and trusts_email(idp)
    base = _username_base(upstream, verified)
    for size in SUFFIXES:
        username = f"{base}-{secrets.token_hex(size)[:size]}" if size else base
        user = User(upstream.tenant_id, username, 0, 0, user_id=new_user_id(), name=upstream.name,
                    email=upstream.email, email_verified=verified, created_at=now, updated_at=now,
                    # Nothing issued before its creation stands for it (as UserStore.create).
                    sessions_valid_after=now - 1, federated_only=True)
        made = LinkedIdentity(user.tenant_id, upstream.issuer, upstream.subject, user.user_id, username, now,
                              "provisioned")
        try:
            LinkedIdentityStore().provision(user, made)
        except UserExists:
            continue
        except LinkRefused:
            return _after_race(upstream)
        return Resolution(PROVISIONED, user, link=made)
    raise unavailable("federation.provision", "no free username")


def _username_base(upstream: UpstreamIdentity, verified: bool) -> str:
    """The new user's username before a suffix: the email's local part when a trusted IdP verified it (an
    unverified one could name anyone), else the upstream subject; lower-case letters, digits and `.-_`."""
    sources = (upstream.email.rpartition("@")[0] if verified else "", upstream.subject)
    for source in sources:
        base = _NOT_IN_USERNAME.sub("-", source.lower()).strip(".-_")[:MAX_USERNAME_BASE].rstrip(".-_")
        if base:
            return base
    return "user"


def _after_race(upstream: UpstreamIdentity) -> Resolution:
    """Another sign-in of the same identity linked it first (or the account changed meanwhile): its link's answer."""
    winner = LinkedIdentityStore().get(upstream.tenant_id, upstream.issuer, upstream.subject)
    found = linked(winner, UserStore().get(winner.tenant_id, winner.username)) if winner is not None else None
    return found if found is not None else Resolution(REFUSED, reason=DISABLED)
