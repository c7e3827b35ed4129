"""KeysTable's SAML item: the keys authgate's SAML service provider signs its requests with (federation.saml.sp_keys).

One item under a well-known kid (`#saml-sp`: no token key's kid, as `#published`), beside the token
keys and never one of them: `keys`, a list of {certificate (PEM), sealed_key (the private key,
sealed: federation.saml.sp_keys), created_at}, the first the one that signs, every one published in
the SP metadata; and a `version` every write is conditional on, so two operators' changes at once
cannot both land. A request reads it with one GetItem (warm-cached by the reader).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field, n, s
from authgate.stores.base import TableStore
from authgate.stores.exceptions import ConcurrentUpdate

SP_KID = "#saml-sp"
FIELDS = (Field("kid", "S"), Field("version", "N", 0), Field("keys", "JSON", ()))


class StoredKey(NamedTuple):
    certificate: str
    sealed_key: str
    created_at: int


class SpKeys(NamedTuple):
    """The item's keys (the first signs) and the version they were read at (0: no item yet)."""

    keys: tuple[StoredKey, ...] = ()
    version: int = 0


class SamlSpKeyStore(TableStore):
    table_setting = "keys"
    name = "saml_sp_keys"

    def read(self) -> SpKeys:
        """The stored keys (one strongly consistent GetItem); no keys when the item is absent."""
        item = self.find({"kid": s(SP_KID)})
        if item is None:
            return SpKeys()
        values = records.from_item(FIELDS, item)
        return SpKeys(tuple(StoredKey(**k) for k in values["keys"]), values["version"])

    def write(self, keys: tuple[StoredKey, ...], read: SpKeys) -> SpKeys:
        """Store `keys` in place of those `read` returned; ConcurrentUpdate when they changed since."""
        after = SpKeys(keys, read.version + 1)
        item: dict[str, Any] = records.to_item(FIELDS, {"kid": SP_KID, "version": after.version,
                                                        "keys": [k._asdict() for k in keys]})
        condition = "version = :v" if read.version else "attribute_not_exists(kid)"
        self.upsert(item, "write", condition=condition, values={":v": n(read.version)} if read.version else None,
                    refused=lambda: ConcurrentUpdate("the SAML signing keys changed meanwhile: run it again"))
        return after
