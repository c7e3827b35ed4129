"""What only an owner does to a person's account: create, update the profile, set a temporary password, delete.

`authgate users create | update | reset-password | delete` and the console call these, which check what they are
given (people.profile) and return what the command and the console say (people.actions.Done). A person who is not
there is UserNotFound, a username the tenant already has UserExists (users.errors). A temporary password is one the
person must change at their next sign-in; setting it, like deleting the person, ends their sessions and refresh tokens
now and tells the clients of the sessions that counted (OpenID Connect Back-Channel Logout 1.0 2.5). Deleting removes
the record with every personal attribute in it, the linked identities in the same transaction, and the passkeys.
"""

from __future__ import annotations

import secrets

from authgate.people import profile
from authgate.people.actions import Done, announce_ended, remove_passkeys, standing
from authgate.people.identities import remove_links
from authgate.users.errors import UserNotFound

# A temporary password the console makes (people.accounts.temporary_password): 128 random bits.
TEMPORARY_BYTES = 16


def create(tenant_id: str, username: str, password: str, *, name: str = "", email: str = "",
           email_verified: bool = False, overwrite: bool = False) -> Done:
    """A new person with `password` (replacing one of the username, with their linked identities, when
    `overwrite`)."""
    from authgate.stores.users import UserStore

    profile.person(tenant_id, username)
    profile.profile(name, email, email_verified, creating=True)
    profile.email_free(tenant_id, username, email)
    profile.new_password(password, username)
    store = UserStore()
    replaced = store.get(tenant_id, username) if overwrite else None
    user = store.create(tenant_id, username, password, overwrite=overwrite, name=name, email=email,
                        email_verified=email_verified)
    if replaced is not None:
        # The replaced person's identities at IdPs were theirs, not the new user's.
        remove_links(replaced)
    return Done(user, f"user {username} created in tenant {tenant_id}", {})


def update(tenant_id: str, username: str, *, name: str | None = None, email: str | None = None,
           email_verified: bool | None = None) -> Done:
    """Change the profile fields given (None: kept; "": removed); a new email is unverified unless told."""
    from authgate.stores.users import UserStore

    profile.person(tenant_id, username)
    profile.profile(name, email, email_verified, creating=False)
    profile.email_free(tenant_id, username, email)
    user = UserStore().update_profile(tenant_id, username, name=name, email=email, email_verified=email_verified)
    return Done(user, f"user {username} updated in tenant {tenant_id}", {})


def reset_password(tenant_id: str, username: str, password: str, issuer: str) -> Done:
    """Give the person the temporary `password`, changed at their next sign-in; their sessions and refresh tokens
    end now."""
    from authgate.stores.users import UserStore

    store = UserStore()
    before = store.get(tenant_id, username)
    if before is None:
        raise UserNotFound(username)
    profile.new_password(password, username)
    counted = standing(before)
    user = store.reset_password(tenant_id, username, password)
    announce_ended(counted, issuer)
    return Done(user, f"user {username} given a temporary password (changed at the next sign-in; its sessions and "
                      f"refresh tokens end now) in tenant {tenant_id}", {})


def delete(tenant_id: str, username: str, issuer: str) -> Done:
    """Remove the person and their personal data: the record, the linked identities, the passkeys; their sessions
    and refresh tokens end now. The person as they were."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    user = UserStore().get(tenant_id, username)
    if user is None:
        raise UserNotFound(username)
    counted = standing(user)
    # With its linked identities, in one transaction: no identity signs in as a user that is gone.
    LinkedIdentityStore().delete_user(user)
    announce_ended(counted, issuer)
    # Personal data: the person's passkeys go with them (a user created again under the name has none).
    remove_passkeys(tenant_id, username)
    return Done(user, f"user {username} deleted from tenant {tenant_id} (its sessions and refresh tokens end now)",
                {"tenant_id": tenant_id, "username": username, "user_id": user.user_id, "deleted": True})


def temporary_password() -> str:
    """A temporary password for an operator to hand on (the console makes it; the person changes it at once)."""
    return secrets.token_urlsafe(TEMPORARY_BYTES)
