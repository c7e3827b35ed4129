"""A sign-in IdP's change of protocol (`authgate idps update --protocol oidc|saml` on a provider of the other one): what
it drops, what it needs, and what becomes of the people linked to it.

The record stays (its issuer, id, label, domains, keys and what its word is trusted for), so the IdP keeps its place
in the URLs registered at it and on the sign-in pages. An OpenID Provider's issuer is an https URL (the `iss` of its
ID tokens, whose discovery document authgate fetches): a SAML IdP becomes one only when its entityID is that URL.
Its SAML metadata goes (an OpenID Provider has none); an OpenID Provider made a SAML IdP keeps its client, unused.

A person's link names them by the IdP's issuer and the subject the protocol gives (users.linked_identities): a SAML
NameID, or an OpenID Connect `sub`. The two are generally different values for one person, so a link made under one
protocol would not match a sign-in under the other, and a value of one that happened to equal another person's of the
other would sign in as that person. While the IdP has links the change is therefore refused, unless the operator asks
for them to be linked again (`relink_by_email`) with the IdP trusted for verified emails (`trust_email`): its links
are then removed, and each person is linked again at their next sign-in by the rule federation.identities already
has (their account's verified email, which the IdP says is theirs and verified), as the same user, with the same
`sub` in authgate's tokens. A person whose account's email is not verified is asked to prove the account instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.identity_providers.model import PROTOCOLS, IdentityProvider
from authgate.operators.input import InvalidInput

if TYPE_CHECKING:
    from authgate.users.linked_identities import LinkedIdentity

# How each protocol names a person (what a link's subject is).
SUBJECTS = {"oidc": "an OpenID Connect sub", "saml": "a SAML NameID"}
RELINK = "--relink-by-email"


def switched(before: IdentityProvider, after: IdentityProvider) -> bool:
    """Whether `after` signs people in by the other protocol than `before` did (oidc and saml, either way)."""
    return before.protocol in PROTOCOLS and after.protocol in PROTOCOLS and before.protocol != after.protocol


def prepared(before: IdentityProvider, after: IdentityProvider, relink: bool, saml_given: bool) -> IdentityProvider:
    """`after` without what the old protocol leaves that the new one cannot hold (a SAML IdP's metadata, unless new
    metadata is given for the checks to judge); InvalidInput for what the change needs."""
    if not switched(before, after):
        if relink:
            raise InvalidInput(f"{RELINK} is for a change of --protocol between oidc and saml")
        return after
    if after.protocol == "oidc":
        from authgate.administration.identity_provider_input import issuer

        try:
            issuer(after.issuer)
        except InvalidInput:
            raise InvalidInput(f"--protocol oidc needs the IdP's issuer to be its OpenID issuer, an https URL; "
                               f"{after.issuer[:200]!r} is not one (an OpenID Provider of another issuer is another "
                               "IdP: `authgate idps create`)") from None
        if not saml_given:
            after = after._replace(saml=None)
    if relink and not after.trust_email:
        raise InvalidInput(f"{RELINK} links people again by their verified email: give --trust-email too")
    return after


def links(before: IdentityProvider, after: IdentityProvider) -> tuple[LinkedIdentity, ...]:
    """The links a change of protocol would leave behind (none for another change: one Query of the tenant's links
    otherwise)."""
    if not switched(before, after):
        return ()
    from authgate.stores.linked_identities import LinkedIdentityStore

    return LinkedIdentityStore().of_issuer(before.tenant_id, before.issuer)


def refusal(before: IdentityProvider, after: IdentityProvider, count: int) -> str:
    """Why the change is refused while `count` people are linked and the operator did not ask them linked again."""
    linked = f"{count} linked identit{'y' if count == 1 else 'ies'}"
    return (f"{before.issuer} has {linked}, each named by {SUBJECTS[before.protocol]}, which {SUBJECTS[after.protocol]} "
            f"does not match: give {RELINK} (with --trust-email) to remove them and link each person again by their "
            "verified email at their next sign-in")


def unlink(before: IdentityProvider, since: int) -> int:
    """Remove the IdP's links made up to `since` (the change's second: a sign-in the old protocol finished while it was
    being written too); how many were removed."""
    from authgate.stores.linked_identities import LinkedIdentityStore

    store = LinkedIdentityStore()
    return sum(store.unlink(link) for link in store.of_issuer(before.tenant_id, before.issuer)
               if link.linked_at <= since)
