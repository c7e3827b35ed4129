"""Withdrawing a consent: what a person approved for a client, forgotten, and every grant made under it ended.

The remembered scopes are deleted (the client's next authorization request asks for consent again) and each
grant the consent item names (its refresh-token family and access tokens, grants.revoke) is revoked, so the
client's refresh token is refused (invalid_grant). The account page (the person) and `authgate users
revoke-consent` (an operator) withdraw through here; the trail records consent.revoked with the person or the
operator as actor.
"""

from __future__ import annotations

from authgate.audit import person
from authgate.grants.revoke import revoke_grant
from authgate.stores.consents import Consent, ConsentStore


def withdraw(tenant_id: str, user_id: str, client_id: str, now: int, *, username: str | None = None) -> Consent | None:
    """Forget the person's consent for `client_id` and revoke its grants: the consent withdrawn, None when there was
    none. With `username`, the person did it, and it is recorded here; an operator's command is recorded as
    theirs (the admin commands' record)."""
    consent = ConsentStore().forget(tenant_id, user_id, client_id)
    if consent is None:
        return None
    for grant_id in consent.grants:
        revoke_grant(grant_id, now, "consent withdrawn")
    if username is not None:
        person.acted("consent.revoked", tenant_id, user_id, username, client_id=client_id,
                     grants_revoked=len(consent.grants))
    return consent
