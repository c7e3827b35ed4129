"""Withdrawing a person's consent for one client, as an operator does it (docs/users.md, docs/audit.md).

What the person approved for the client is forgotten and every grant made under it revoked (grants.consent, as the
person's own "Remove access" on the account page): the client asks for consent again at its next authorization
request, and its refresh tokens are refused. `authgate users revoke-consent` and the console call `withdraw_consent`;
each records consent.revoked with the operator as actor.
"""

from __future__ import annotations

from authgate.people.actions import Done, count
from authgate.users.errors import UserNotFound


class UnknownClient(LookupError):
    """No client of the id named."""


class NoConsent(LookupError):
    """The person has not allowed the client."""


def withdraw_consent(tenant_id: str, username: str, client_id: str) -> Done:
    """Withdraw the person's consent for `client_id` and revoke the grants made under it."""
    from authgate import clock
    from authgate.grants.consent import withdraw
    from authgate.operators.input import identifier
    from authgate.stores.clients import ClientStore
    from authgate.stores.users import UserStore

    identifier(client_id, "--client")
    user = UserStore().get(tenant_id, username)
    if user is None or not user.user_id:
        raise UserNotFound(username)
    if ClientStore().get(client_id, any_environment=True) is None:
        raise UnknownClient(f"no client {client_id!r}")
    consent = withdraw(tenant_id, user.user_id, client_id, clock.seconds())
    if consent is None:
        raise NoConsent(f"user {username!r} of tenant {tenant_id!r} has not allowed client {client_id!r}")
    return Done(user, f"consent of {username} in tenant {tenant_id} for client {client_id} withdrawn; "
                      f"{count(len(consent.grants), 'grant')} revoked",
                {"tenant_id": tenant_id, "username": username, "client_id": client_id,
                 "grants_revoked": len(consent.grants)})
