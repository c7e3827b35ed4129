"""A registered protected resource (RFC 8707 2; RFC 9728 2): the `aud` of its tokens, its scopes, its tenants.

`FIELDS` is the one list of a resource's attributes: it drives the DynamoDB item
(stores.resources) and the admin listing's public view. The charges API is a `Resource` too,
built in (`builtin`, never stored: oauth.resource_indicator.builtin_resource).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field


class Resource(NamedTuple):
    """A protected resource: the `aud` of the tokens issued for it (RFC 8707 2, RFC 9068 2.2)."""

    resource: str
    scopes: tuple[str, ...]
    # Empty: every tenant may use it.
    tenants: tuple[str, ...] = ()
    # The confidential client that may introspect its tokens (RFC 7662 2.1, 4).
    introspection_client_id: str = ""
    created_at: int = 0
    # What the consent page tells a person: the API's name and what it holds, and what each scope
    # allows, as sorted (scope, text) pairs (a scope without one is shown by its name).
    name: str = ""
    description: str = ""
    scope_descriptions: tuple[tuple[str, str], ...] = ()
    # The resources a holder of this resource's credentials may exchange its tokens for (RFC 8693 2.1,
    # `authgate resources update --may-delegate-to`): none by default.
    may_delegate_to: tuple[str, ...] = ()
    # Its own authorization_details types (RFC 9396 2) as sorted (type, JSON Schema text) pairs
    # (`authgate resources update --authorization-details-type NAME --schema FILE`).
    authorization_details_types: tuple[tuple[str, str], ...] = ()
    # The charges API: known without a record.
    builtin: bool = False

    def allows_tenant(self, tenant_id: str) -> bool:
        return not self.tenants or tenant_id in self.tenants

    def may_delegate(self, target: str) -> bool:
        """Whether this resource's server may exchange a token for `target` (RFC 8693 1.1, 2.1)."""
        return target in self.may_delegate_to

    def describes(self, scope: str) -> str:
        """What `scope` allows, in the resource's words ("" when it gave none)."""
        return next((text for name, text in self.scope_descriptions if name == scope), "")

    def detail_schemas(self) -> dict[str, Any]:
        """Each of its authorization_details types and its JSON Schema (RFC 9396 2)."""
        return {name: json.loads(schema) for name, schema in self.authorization_details_types}

    def public_view(self) -> dict[str, Any]:
        """What an admin listing shows (a resource holds no secret)."""
        view = records.public_view(FIELDS, self._asdict())
        view["introspection_client_id"] = self.introspection_client_id or None
        view["builtin"] = self.builtin
        return view


# A resource's stored attributes, in `Resource`'s order.
FIELDS = (
    Field("resource", "S"),
    Field("scopes", "STRINGS", ()),
    Field("tenants", "STRINGS", ()),
    Field("introspection_client_id", "S", ""),
    Field("created_at", "N", 0),
    Field("name", "S", "", omit_empty=True),
    Field("description", "S", "", omit_empty=True),
    Field("scope_descriptions", "MAP", (), omit_empty=True),
    Field("may_delegate_to", "STRINGS", (), omit_empty=True),
    Field("authorization_details_types", "MAP", (), omit_empty=True),
)


def to_item(resource: Resource) -> records.Item:
    """The resource's DynamoDB item."""
    return records.to_item(FIELDS, resource._asdict())


def from_item(item: records.Item) -> Resource:
    return Resource(**records.from_item(FIELDS, item))
