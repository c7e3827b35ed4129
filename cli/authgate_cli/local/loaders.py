"""The local stack's seed loaders: one per seed section, each writing its store's records.

Kept out of the runtime layer: only `authgate serve`/`bootstrap` seed tables, a deployed
function never does. Secrets and passwords are plaintext in a seed file and hashed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any


def tenants(items: list[dict[str, Any]], dynamodb: Any = None) -> int:
    """One Tenant per item (fields as in the table, authgate.tenants.model.FIELDS; the name defaults to the id)."""
    from authgate.stores.tenants import TenantStore
    from authgate.tenants.model import tenant_of

    store = TenantStore(dynamodb)
    for raw in items:
        store.put(tenant_of({"name": raw["tenant_id"], **raw}))
    return len(items)


def clients(items: list[dict[str, Any]], dynamodb: Any = None) -> int:
    """One Client per item, by field name (authgate.clients.model.FIELDS: absent fields take their defaults,
    other members such as a demo's private key are ignored); a plaintext `secret` is hashed on load, the
    name defaults to the id; records are replaced."""
    from authgate import clock
    from authgate.clients.model import client_of, hash_secret
    from authgate.settings import get_settings
    from authgate.stores.clients import ClientStore

    store = ClientStore(dynamodb)
    for raw in items:
        secret = raw.get("secret")
        store.put(client_of({
            "name": raw["client_id"], "client_type": "confidential" if secret else "public", **raw,
            "environment": raw.get("environment") or get_settings().stage,
            "secret_hash": hash_secret(secret) if secret else None, "created_at": clock.seconds()}))
    return len(items)


# What a seeded user may say besides its password: the user's id and what OIDC's profile and email scopes return.
PROFILE_FIELDS = ("user_id", "name", "email", "email_verified")


def users(items: Iterable[Mapping[str, Any]], dynamodb: Any = None) -> int:
    """The "users" section: [{"tenant_id", "username", "password", "user_id"?, "name"?, "email"?,
    "email_verified"?, "totp_secret"?, "roles"?}]; returns the count. A seeded user keeps its `user_id` across
    restarts when the seed names one (the demo's alice and bob do).

    A seeded password is hashed once per process (a local stack and the tests reseed often, and
    each hash costs 128 MiB and most of a second); every user still gets its own salt. A
    `totp_secret` (base32) becomes the user's confirmed one-time-code secret, sealed under the
    stack's session secret as any enrolled one is. `roles` (role -> tenants, an operator's in the console:
    authgate.operators.roles) are granted as `authgate operators grant` grants them.
    """
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.user_factors import UserFactorStore

    store, passkeys = UserFactorStore(dynamodb), PasskeyStore(dynamodb)
    count = 0
    for entry in items:
        tenant, username = str(entry["tenant_id"]), str(entry["username"])
        profile = {name: entry[name] for name in PROFILE_FIELDS if name in entry}
        store.put_hash(tenant, username, _seeded_hash(tenant, username, str(entry["password"])),
                       passkeys=len(passkeys.of_user(tenant, username)), **profile)
        if entry.get("totp_secret"):
            store.set_totp(tenant, username, str(entry["totp_secret"]))
        if entry.get("roles"):
            _grant(tenant, username, entry["roles"], dynamodb)
        count += 1
    return count


def _grant(tenant_id: str, username: str, roles: Mapping[str, Any], dynamodb: Any) -> None:
    from authgate.operators.roles import granted
    from authgate.stores.operators import OperatorStore

    store = OperatorStore(dynamodb)
    operator = store.get(tenant_id, username)
    assert operator is not None
    held = operator.roles
    for role, tenants in sorted(roles.items()):
        held = granted(held, role, tenants)
    store.set_roles(operator, held)


@lru_cache(maxsize=64)
def _seeded_hash(tenant_id: str, username: str, password: str) -> str:
    from authgate.users.passwords import hash_password

    return hash_password(password)


def invoices(items: Iterable[Mapping[str, Any]], dynamodb: Any = None) -> int:
    """The "invoices" section: [{"tenant_id", "invoice_id", "status", "amount_due"?, ...}]."""
    from authgate.billing.invoice import Invoice
    from authgate.stores.invoices import InvoiceStore

    store = InvoiceStore(dynamodb)
    count = 0
    for raw in items:
        missing = [k for k in ("tenant_id", "invoice_id", "status") if not raw.get(k)]
        if missing:
            raise ValueError(f"seed invoice {raw!r} lacks {', '.join(missing)}")
        unknown = set(raw) - {"tenant_id", "invoice_id", "status", "amount_due", "currency", "description"}
        if unknown:
            raise ValueError(f"seed invoice {raw['invoice_id']}: unknown members {sorted(unknown)}")
        store.put(Invoice(raw["tenant_id"], raw["invoice_id"], raw["status"],
                          raw.get("amount_due"), raw.get("currency"), raw.get("description")))
        count += 1
    return count


# Section -> its loader, in load order (tenants before the clients and users that name them).
# Where the demo identity provider (authgate_cli.local.demo_idp) listens when no running stack says otherwise.
DEMO_IDP_ORIGIN = "http://127.0.0.1:8766"
DEMO_IDP_PLACEHOLDER = "{demo_idp}"


def identity_providers(items: Iterable[Mapping[str, Any]], dynamodb: Any = None) -> int:
    """The "identity_providers" section: one IdentityProvider per item, by field name
    (authgate.identity_providers.model); a plaintext `client_secret` is sealed on load as `authgate idps` seals
    it; `{demo_idp}` in the issuer is the demo identity provider's origin (AUTHGATE_DEMO_UPSTREAM, which `authgate
    serve` sets, else DEMO_IDP_ORIGIN); records are replaced, and each tenant's sign-in options rewritten. A
    record of the demo identity provider is offered on the sign-in page only where the stack runs it (a button to
    a provider nobody started would lead nowhere); it is trusted all the same."""
    from authgate import clock
    from authgate.federation import secrets
    from authgate.identity_providers.model import FIELDS, IdentityProvider, to_item
    from authgate.settings import get_settings
    from authgate.stores.identity_providers import IdentityProviderStore

    store = IdentityProviderStore(dynamodb)
    names = {f.name for f in FIELDS}
    running = get_settings().demo_upstream
    origin = running or DEMO_IDP_ORIGIN
    count, tenants = 0, set()
    for raw in items:
        fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items() if k in names}
        fields["issuer"] = str(raw["issuer"]).replace(DEMO_IDP_PLACEHOLDER, origin)
        if "claims" in raw:
            fields["claims"] = tuple(sorted(raw["claims"].items()))
        if raw.get("client_secret"):
            fields["client_secret"] = secrets.seal(raw["tenant_id"], fields["issuer"], "client_secret",
                                                   raw["client_secret"])
        idp = IdentityProvider(**{"created_at": clock.seconds(), **fields})
        offered = bool(idp.protocol) and (bool(running) or DEMO_IDP_PLACEHOLDER not in str(raw["issuer"]))
        store.upsert(to_item(idp._replace(sign_in=offered)), "seed")
        tenants.add(idp.tenant_id)
        count += 1
    for tenant_id in sorted(tenants):
        store.refresh_sign_in(tenant_id)
    return count


LOADERS = {"tenants": tenants, "clients": clients, "users": users, "invoices": invoices,
           "identity_providers": identity_providers}
