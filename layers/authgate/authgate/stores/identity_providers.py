"""IdentityProvidersTable: each tenant's identity providers, for ID-JAGs (draft-ietf-oauth-identity-assertion-authz-grant
7.1) and for sign-in (authgate.federation).

Key: tenant_id (hash) and issuer (range), so the token endpoint finds the IdP an ID-JAG names
within the client's tenant with one GetItem, and a tenant's IdPs are one Query. Every write also rewrites the
tenant's sign-in options (stores.sign_in_options: the buttons and email domains its sign-in pages offer), from the
records as they stand after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from authgate.identity_providers.errors import IdentityProviderExists, IdentityProviderNotFound
from authgate.identity_providers.model import IdentityProvider, from_item, to_item
from authgate.records import s
from authgate.stores.base import TableStore
from authgate.stores.sign_in_options import SignInOptionStore

MAX_ISSUER = 500


def _key(tenant_id: str, issuer: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "issuer": s(issuer)}


class IdentityProviderStore(TableStore):
    table_setting = "identity_providers"

    def get(self, tenant_id: str, issuer: str) -> IdentityProvider | None:
        """The tenant's IdP with this issuer, or None (one GetItem)."""
        if not tenant_id or not issuer or len(issuer) > MAX_ISSUER:
            return None
        item = self.find(_key(tenant_id, issuer), consistent=False)
        return from_item(item) if item else None

    def create(self, idp: IdentityProvider) -> None:
        """Trust a new IdP; IdentityProviderExists when the tenant already trusts this issuer."""
        self.upsert(to_item(idp), "create", condition="attribute_not_exists(issuer)",
                    refused=lambda: IdentityProviderExists(idp.issuer))
        self.refresh_sign_in(idp.tenant_id)

    def update(self, idp: IdentityProvider) -> None:
        """Rewrite a trusted IdP; IdentityProviderNotFound when it is gone."""
        self.upsert(to_item(idp), "update", condition="attribute_exists(issuer)",
                    refused=lambda: IdentityProviderNotFound(idp.issuer))
        self.refresh_sign_in(idp.tenant_id)

    def delete(self, tenant_id: str, issuer: str) -> None:
        """Stop trusting an IdP; IdentityProviderNotFound when it was not trusted."""
        self.destroy(_key(tenant_id, issuer), condition="attribute_exists(issuer)",
                     refused=lambda: IdentityProviderNotFound(issuer))
        self.refresh_sign_in(tenant_id)

    def refresh_sign_in(self, tenant_id: str) -> None:
        """Rewrite the tenant's sign-in options from its records as they stand (a Query and a write: admin only)."""
        from authgate.identity_providers.sign_in_options import options_of

        SignInOptionStore(self._db).put(tenant_id, options_of(self.of_tenant(tenant_id)))

    def of_tenant(self, tenant_id: str) -> list[IdentityProvider]:
        """The tenant's IdPs, by issuer (one Query a page: a tenant has a few; its sign-in page lists them)."""
        found: list[IdentityProvider] = []
        kwargs: dict[str, Any] = {"TableName": self.table, "KeyConditionExpression": "tenant_id = :t",
                                  "ExpressionAttributeValues": {":t": s(tenant_id)}}
        while True:
            with self.faults("query"):
                page = self.db.query(**kwargs)
            found.extend(from_item(item) for item in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return found
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def list(self) -> Iterator[IdentityProvider]:
        """Every tenant's IdPs (a Scan: for the admin CLI, never a request path)."""
        return (from_item(item) for item in self.scan())
