"""A tenant and its policy: currencies, forbidden scopes, approved and self-registered clients, strong authentication.

`FIELDS` is the one list of a tenant's attributes: the DynamoDB item (stores.tenants), the seed
loader and the admin commands' settings (authgate_cli.admin.tenant_settings) follow it. To add
a setting, add it to `Tenant`, here, and to the admin table of settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field

# RFC 9470 max_age a tenant's threshold asks for unless it sets its own (seconds).
DEFAULT_SCA_MAX_AGE = 300


class Tenant(NamedTuple):
    tenant_id: str
    name: str = ""
    currencies: tuple[str, ...] = ()
    forbidden_scopes: frozenset[str] = frozenset()
    approved_clients: frozenset[str] = frozenset()
    # Which clients known only by a Client ID Metadata Document this tenant's users may authorize
    # (docs/agents.md): () none, ("*",) any host, else hosts ("tools.example") and domains
    # (".example.com": any host under it).
    client_metadata_hosts: tuple[str, ...] = ()
    # Dynamically registered clients (RFC 7591): whether its users may authorize them, and how
    # many this tenant holds at most (a client becomes the tenant's at its first sign-in).
    registered_clients: bool = False
    registered_clients_cap: int = 100
    # Email domains whose users sign in to this tenant with their email address, no organisation
    # to type (docs/users.md); each domain belongs to one tenant (stores.tenants keeps the index).
    login_domains: tuple[str, ...] = ()
    # Strong customer authentication for money (RFC 9470, docs/strong-authentication.md): a charge of at
    # least `sca_threshold` minor units needs a user token with acr "mfa" from a sign-in at most
    # `sca_max_age` seconds old. None: no threshold.
    sca_threshold: int | None = None
    sca_max_age: int = DEFAULT_SCA_MAX_AGE
    # Every sign-in of its users must reach acr "mfa"; a user without a second factor enrols one at
    # the next sign-in (docs/strong-authentication.md).
    require_mfa: bool = False
    # Where a backchannel request's approval link is posted (OpenID Connect CIBA, docs/ciba.md): an
    # https URL checked by authgate.outbound at registration and at each delivery; "" none.
    approval_webhook: str = ""

    def accepts_metadata_host(self, host: str) -> bool:
        """Whether this tenant's policy accepts a client whose metadata document is on `host`."""
        host = host.lower()
        for allowed in self.client_metadata_hosts:
            if allowed == "*" or allowed == host or (allowed.startswith(".") and host.endswith(allowed)):
                return True
        return False

    def needs_strong_authentication(self, amount: int) -> bool:
        """Whether a charge of `amount` minor units is at or above this tenant's threshold."""
        return self.sca_threshold is not None and amount >= self.sca_threshold

    def forbids(self, scope: str) -> bool:
        return scope in self.forbidden_scopes

    def has_approved(self, client_id: str) -> bool:
        return client_id in self.approved_clients


# A tenant's attributes, in `Tenant`'s order.
FIELDS = (
    Field("tenant_id", "S"),
    Field("name", "S", ""),
    Field("currencies", "STRINGS", ()),
    Field("forbidden_scopes", "STRINGS", ()),
    Field("approved_clients", "STRINGS", ()),
    Field("client_metadata_hosts", "STRINGS", (), omit_empty=True),
    Field("registered_clients", "BOOL", False, omit_empty=True),
    Field("registered_clients_cap", "N", 100),
    Field("login_domains", "STRINGS", (), omit_empty=True),
    Field("sca_threshold", "N", None, omit_none=True),
    Field("sca_max_age", "N", DEFAULT_SCA_MAX_AGE),
    Field("require_mfa", "BOOL", False, omit_empty=True),
    Field("approval_webhook", "S", "", omit_empty=True),
)
# Held as sets in `Tenant` (order means nothing; stored sorted).
_SETS = ("forbidden_scopes", "approved_clients")


def tenant_of(values: Mapping[str, Any]) -> Tenant:
    """A Tenant from values by field name (a seed's JSON, an item read back): sets for the set-valued fields,
    tuples for lists; absent fields take their defaults, unknown names are ignored."""
    known = {f.name: values[f.name] for f in FIELDS if f.name in values}
    for name, value in known.items():
        if isinstance(value, (list, tuple, set, frozenset)):
            known[name] = frozenset(value) if name in _SETS else tuple(value)
    return Tenant(**known)


def from_item(item: records.Item) -> Tenant:
    """A Tenant from its DynamoDB item."""
    return tenant_of(records.from_item(FIELDS, item))


def to_item(tenant: Tenant) -> records.Item:
    """The tenant's DynamoDB item (sets stored sorted)."""
    values = tenant._asdict()
    for name in _SETS:
        values[name] = sorted(values[name])
    return records.to_item(FIELDS, values)
