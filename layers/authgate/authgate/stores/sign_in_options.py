"""TenantsTable items `sign-in#<tenant>`: the tenant's sign-in options (identity_providers.sign_in_options).

Beside the tenant's own item, so that a sign-in page registers its key in the batch read it makes for the tenant
(no call of its own); absent for a tenant without an IdP offered for sign-in. Written only by the IdP store, from
the tenant's records, whenever one changes (stores.identity_providers).
"""

from __future__ import annotations

from authgate import records
from authgate.identity_providers.sign_in_options import SignInOption, dump, load
from authgate.records import Item, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending

PREFIX = "sign-in#"


def _key(tenant_id: str) -> Item:
    return {"tenant_id": s(PREFIX + tenant_id)}


def options_in(item: Item | None) -> tuple[SignInOption, ...]:
    """The options an item read holds (() for none)."""
    return load(records.string(item, "options", "[]")) if item else ()


class SignInOptionStore(TableStore):
    table_setting = "tenants"
    name = "sign_in_options"

    def get(self, tenant_id: str) -> tuple[SignInOption, ...]:
        """The tenant's options, () when it offers none (one GetItem)."""
        if not tenant_id or "#" in tenant_id:
            return ()
        return options_in(self.find(_key(tenant_id), consistent=False))

    def prefetch(self, reads: BatchRead, tenant_id: str) -> Pending:
        """Register the tenant's options in a batch read (`options_in` of its item once the batch ran)."""
        return reads.add(self.table, _key(tenant_id))

    def put(self, tenant_id: str, options: tuple[SignInOption, ...]) -> None:
        """Make `options` the tenant's (the item removed when there are none)."""
        if options:
            self.upsert({**_key(tenant_id), "options": s(dump(options))})
        else:
            self.destroy(_key(tenant_id))
