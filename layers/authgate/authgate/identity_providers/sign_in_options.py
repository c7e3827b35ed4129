"""What a tenant's sign-in page offers: one button per identity provider for sign-in, and the email domains that send
a person straight to one (home-realm discovery; docs/federation.md).

A short summary of the tenant's IdP records with `sign_in` (`SignInOption`), kept beside the tenant
(stores.sign_in_options) so that a sign-in page reads it in the batch it makes anyway: a tenant without such IdPs
has no summary, and its pages read nothing more than before. The admin commands rewrite it from the records on
every change (stores.identity_providers).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from authgate.identity_providers.model import IdentityProvider

# Buttons on one page: a tenant lists a few IdPs; a summary is bounded whatever the records say.
MAX_OPTIONS = 20


class SignInOption(NamedTuple):
    """One IdP as the sign-in page offers it."""

    idp_id: str
    label: str
    issuer: str
    protocol: str
    domains: tuple[str, ...] = ()


def options_of(idps: Iterable[IdentityProvider]) -> tuple[SignInOption, ...]:
    """The IdPs of a tenant offered for sign-in (a protocol, `sign_in` set, an id), by label then id."""
    offered = [SignInOption(i.idp_id, i.label or i.idp_id, i.issuer, i.protocol, tuple(d.lower() for d in i.domains))
               for i in idps if i.sign_in and i.protocol and i.idp_id]
    return tuple(sorted(offered, key=lambda o: (o.label.lower(), o.idp_id)))[:MAX_OPTIONS]


def by_id(options: Iterable[SignInOption], idp_id: str) -> SignInOption | None:
    """The option a button names, or None (an altered form, or an IdP removed meanwhile)."""
    return next((o for o in options if o.idp_id == idp_id), None)


def for_email(options: Iterable[SignInOption], email: str) -> SignInOption | None:
    """The option whose domains claim `email`'s domain (exactly, case-insensitive), or None."""
    local, at, domain = email.strip().rpartition("@")
    if not at or not local or not domain:
        return None
    domain = domain.lower()
    return next((o for o in options if domain in o.domains), None)


def dump(options: Iterable[SignInOption]) -> str:
    """The summary as its item keeps it (compact JSON)."""
    return json.dumps([[o.idp_id, o.label, o.issuer, o.protocol, list(o.domains)] for o in options],
                      separators=(",", ":"))


def load(text: str) -> tuple[SignInOption, ...]:
    """The summary an item keeps; () for one that does not read (never raises)."""
    try:
        rows = json.loads(text)
        return tuple(SignInOption(str(r[0]), str(r[1]), str(r[2]), str(r[3]), tuple(str(d) for d in r[4]))
                     for r in rows)[:MAX_OPTIONS]
    except (ValueError, TypeError, IndexError, KeyError):
        return ()
