"""A person's linked identities, as an operator sees and removes them (docs/users.md).

A linked identity is the person at one of the tenant's identity providers (its issuer and the upstream subject), and
signs in as the person (authgate.federation.identities). `unlink` removes the identities at one IdP, named by its id
or its issuer, for `authgate users unlink` and the console alike: the identity then signs in as nobody until it is
linked again (a first sign-in provisions or asks for the account's proof, as the IdP is configured).
"""

from __future__ import annotations

from typing import Any

from authgate.people.actions import Done
from authgate.users.errors import UserNotFound
from authgate.users.linked_identities import LinkedIdentity
from authgate.users.model import User


class NotLinked(LookupError):
    """The person has no identity at the IdP named."""


def linked(user: User) -> tuple[LinkedIdentity, ...]:
    """The person's links (one Query of the index)."""
    from authgate.stores.linked_identities import LinkedIdentityStore

    return LinkedIdentityStore().of_user(user.user_id)


def views(tenant_id: str, links: tuple[LinkedIdentity, ...]) -> list[dict[str, Any]]:
    """Each link as shown: the IdP's id and label (from its record, "" when the IdP is no longer trusted), the
    issuer, the upstream subject, when and how it was linked."""
    from authgate.stores.identity_providers import IdentityProviderStore

    idps = {issuer: IdentityProviderStore().get(tenant_id, issuer) for issuer in {link.issuer for link in links}}
    return [{"idp_id": idp.idp_id if (idp := idps[link.issuer]) else "", "label": idp.label if idp else "",
             "issuer": link.issuer, "subject": link.subject, "linked_at": link.linked_at, "via": link.via}
            for link in links]


def unlink(tenant_id: str, username: str, idp: str) -> Done:
    """Remove the person's identities at the IdP `idp` names (its id or its issuer); the figures list those removed
    (none: they changed meanwhile). NotLinked when there is none there."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    user = UserStore().get(tenant_id, username)
    if user is None:
        raise UserNotFound(username)
    links = linked(user)
    chosen = [(link, v) for link, v in zip(links, views(tenant_id, links), strict=True) if idp in (v["issuer"], v["idp_id"])]
    if not chosen:
        raise NotLinked(f"user {username!r} of tenant {tenant_id!r} has no identity linked at {idp!r}")
    store = LinkedIdentityStore()
    removed = [v for link, v in chosen if store.unlink(link)]
    said = "\n".join(f"identity {v['subject']} of {v['issuer']} unlinked from user {username} in tenant {tenant_id}"
                     for v in removed) or f"nothing unlinked: the identities of {username} changed meanwhile"
    return Done(user, said, {"tenant_id": tenant_id, "username": username, "unlinked": removed})


def remove_links(user: User) -> int:
    """Remove every link of a person replaced by another of the username (the one they named is gone); how many."""
    from authgate.stores.linked_identities import LinkedIdentityStore

    store = LinkedIdentityStore()
    return sum(store.unlink(link) for link in linked(user))
