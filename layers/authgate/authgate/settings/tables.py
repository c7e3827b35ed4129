"""The DynamoDB table names, one per store, and the variables that name them (template.yaml passes them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

TABLE_ENV = {
    "tenants": "AUTHGATE_TENANTS_TABLE",
    "clients": "AUTHGATE_CLIENTS_TABLE",
    "users": "AUTHGATE_USERS_TABLE",
    "codes": "AUTHGATE_CODES_TABLE",
    "refresh": "AUTHGATE_REFRESH_TABLE",
    "revocations": "AUTHGATE_REVOCATIONS_TABLE",
    "keys": "AUTHGATE_KEYS_TABLE",
    "idempotency": "AUTHGATE_IDEMPOTENCY_TABLE",
    "charges": "AUTHGATE_CHARGES_TABLE",
    "invoices": "AUTHGATE_INVOICES_TABLE",
    "limits": "AUTHGATE_LIMITS_TABLE",
    "replay": "AUTHGATE_REPLAY_TABLE",
    "resources": "AUTHGATE_RESOURCES_TABLE",
    "sessions": "AUTHGATE_SESSIONS_TABLE",
    "consents": "AUTHGATE_CONSENTS_TABLE",
    "passkeys": "AUTHGATE_PASSKEYS_TABLE",
    "identity_providers": "AUTHGATE_IDENTITY_PROVIDERS_TABLE",
    "linked_identities": "AUTHGATE_LINKED_IDENTITIES_TABLE",
    "streams": "AUTHGATE_STREAMS_TABLE",
}


# Settings, Tables and Limits are NamedTuples, not frozen dataclasses: immutable and typed alike,
# and cheaper to build at cold start (docs/decisions.md, measured shortcuts).
class Tables(NamedTuple):
    """DynamoDB table names, one per store."""

    tenants: str = "TenantsTable"
    clients: str = "ClientsTable"
    users: str = "UsersTable"
    codes: str = "CodesTable"
    refresh: str = "RefreshTokensTable"
    revocations: str = "RevocationsTable"
    keys: str = "KeysTable"
    idempotency: str = "IdempotencyTable"
    charges: str = "ChargesTable"
    invoices: str = "InvoicesTable"
    limits: str = "LimitsTable"
    replay: str = "ReplayTable"
    resources: str = "ResourcesTable"
    sessions: str = "SessionsTable"
    consents: str = "ConsentsTable"
    passkeys: str = "PasskeysTable"
    identity_providers: str = "IdentityProvidersTable"
    linked_identities: str = "LinkedIdentitiesTable"
    streams: str = "StreamsTable"


_DEFAULT_TABLES = Tables()


def tables(env: Mapping[str, str]) -> Tables:
    """Each table's name from its variable; the default name where it is unset or empty."""
    return Tables(**{name: env.get(TABLE_ENV[name]) or getattr(_DEFAULT_TABLES, name) for name in Tables._fields})
