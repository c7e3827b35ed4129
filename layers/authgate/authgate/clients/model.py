"""A registered OAuth client (RFC 6749 2; metadata RFC 7591 2) and its secret (RFC 6749 2.3.1).

`FIELDS` is the one list of a client's attributes: it drives the DynamoDB item
(stores.clients) and the admin listing's public view. To add a field, add it to `Client` and to
`FIELDS`. Secrets are server-generated, 256-bit random values, so a single SHA-256 is the right
hash (nothing to brute-force); comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field
from authgate.request_view import ERROR_FORMATS

CLIENT_TYPES = ("confidential", "public")
ENVIRONMENTS = ("local", "staging", "production")
# -- client authentication and profile (RFC 7591 2, RFC 9126 6, FAPI 2.0) ---------------------------
# "" = as before these attributes: client_secret_basic/_post for a confidential client, none for
# a public one. private_key_jwt (RFC 7523 2.2) needs registered public keys (`jwks`).
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")
# Client.source of a cached Client ID Metadata Document (oauth.client_metadata.document).
DOCUMENT_SOURCE = "metadata_document"
# A client id is at most this long (admin commands and stores refuse longer ones).
MAX_CLIENT_ID_LENGTH = 200
# The FAPI 2.0 Security Profile (oauth.client_profile says what it demands).
FAPI2 = "fapi2"
PROFILES = (FAPI2,)
# Hash compared against when the client is unknown, so both paths do the same work.
_DUMMY_HASH = hashlib.sha256(b"authgate-unknown-client").hexdigest()


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """256 bits from the OS CSPRNG, URL-safe: shown once, stored only as its hash."""
    return secrets.token_urlsafe(32)


class Client(NamedTuple):
    client_id: str
    tenant_id: str
    environment: str
    client_type: str
    secret_hash: str | None
    redirect_uris: tuple[str, ...]
    grant_types: tuple[str, ...]
    scopes: tuple[str, ...]
    error_format: str = "problem"
    requires_admin_approval: bool = False
    name: str = ""
    created_at: int = 0
    # -- client authentication and profile (RFC 7591 2, RFC 9126 6, FAPI 2.0) -----------------------
    # The registered JWK Set's keys (public members only), for private_key_jwt (RFC 7523 2.2).
    jwks: tuple[dict[str, Any], ...] = ()
    token_endpoint_auth_method: str = ""
    require_pushed_authorization_requests: bool = False
    profile: str = ""
    # -- DPoP (RFC 9449): one block, kept together --
    # RFC 9449 5.2 client metadata: every access token of this client must be DPoP-bound.
    dpop_bound_access_tokens: bool = False
    # -- clients that register themselves (docs/agents.md) --
    # "" registered by an administrator; "metadata_document": a cached Client ID Metadata
    # Document (its client_id is the document's URL); "registration": RFC 7591.
    source: str = ""
    # A metadata document is fetched again from this time on (draft 5.2; unix seconds).
    refresh_at: int = 0
    # DynamoDB TTL: the record disappears by itself after this time (0: never).
    expires_at: int = 0
    # RFC 7592: the SHA-256 of the registration access token (never the token itself).
    registration_token_hash: str = ""
    # Which pool a registered client counts in (stores.registrations): "unassigned", then its tenant.
    registration_pool: str = ""
    # -- least privilege for registered resources (RFC 6749 4.4, RFC 9700 2.3) --
    # The scopes of each registered resource an administrator granted this client, as sorted
    # (resource, scopes) pairs: all a client_credentials token may ever hold for that resource.
    resource_scopes: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def auth_methods(self) -> tuple[str, ...]:
        """The token-endpoint authentication methods this client may use (RFC 7591 2)."""
        if self.token_endpoint_auth_method:
            return (self.token_endpoint_auth_method,)
        return ("none",) if self.is_public else ("client_secret_basic", "client_secret_post")

    @property
    def is_public(self) -> bool:
        return self.client_type == "public"

    def verify_secret(self, secret: str) -> bool:
        """Constant-time check of a presented secret (RFC 6749 §2.3.1)."""
        return client_secret_matches(self, secret)

    def allows_grant(self, grant_type: str) -> bool:
        return grant_type in self.grant_types

    def granted_scopes(self, resource: str) -> tuple[str, ...]:
        """The scopes of registered resource `resource` an administrator granted this client (none: ())."""
        return next((scopes for uri, scopes in self.resource_scopes if uri == resource), ())

    def expired(self, now: int) -> bool:
        """Whether the record outlived its DynamoDB TTL: deletion is lazy (and moto never deletes)."""
        return 0 < self.expires_at <= now

    def public_view(self) -> dict[str, Any]:
        """What an admin listing shows: everything except the secret hash."""
        view = records.public_view(FIELDS, self._asdict())
        view["token_endpoint_auth_method"] = self.auth_methods[0]
        return view


# A client's attributes, in `Client`'s order (RFC 7591 2 names where there is one).
FIELDS = (
    Field("client_id", "S"),
    Field("tenant_id", "S", ""),
    Field("environment", "S", "local"),
    Field("client_type", "S", "confidential"),
    Field("secret_hash", "S", None, omit_empty=True, public=False),
    Field("redirect_uris", "STRINGS", ()),
    Field("grant_types", "STRINGS", ()),
    Field("scopes", "STRINGS", ()),
    Field("error_format", "S", "problem"),
    Field("requires_admin_approval", "BOOL", False),
    Field("name", "S", ""),
    Field("created_at", "N", 0),
    Field("jwks", "KEYS", (), omit_empty=True),
    Field("token_endpoint_auth_method", "S", "", omit_empty=True),
    Field("require_pushed_authorization_requests", "BOOL", False, omit_empty=True),
    Field("profile", "S", "", omit_empty=True),
    # -- DPoP (RFC 9449 5.2) --
    Field("dpop_bound_access_tokens", "BOOL", False, omit_empty=True),
    # -- clients that register themselves (docs/agents.md) --
    Field("source", "S", "", omit_empty=True),
    Field("refresh_at", "N", 0, omit_empty=True),
    Field("expires_at", "N", 0, omit_empty=True),
    Field("registration_token_hash", "S", "", omit_empty=True, public=False),
    Field("registration_pool", "S", "", omit_empty=True),
    # -- least privilege for registered resources --
    Field("resource_scopes", "MAP", (), omit_empty=True),
)


def client_secret_matches(client: Client | None, secret: str) -> bool:
    """True when `client` is confidential and `secret` hashes to its stored hash."""
    stored = client.secret_hash if client is not None and client.secret_hash else _DUMMY_HASH
    ok = hmac.compare_digest(hash_secret(secret), stored)
    return ok and client is not None and bool(client.secret_hash)


def check_registration(*, client_type: str, error_format: str, environment: str,
                       token_endpoint_auth_method: str, profile: str) -> None:
    """ValueError unless every enumerated registration value is one this server knows (RFC 7591 2)."""
    if client_type not in CLIENT_TYPES:
        raise ValueError(f"client_type must be one of {CLIENT_TYPES}")
    if error_format not in ERROR_FORMATS:
        raise ValueError(f"error_format must be one of {ERROR_FORMATS}")
    if environment not in ENVIRONMENTS:
        raise ValueError(f"environment must be one of {ENVIRONMENTS}")
    if token_endpoint_auth_method and token_endpoint_auth_method not in AUTH_METHODS:
        raise ValueError(f"token_endpoint_auth_method must be one of {AUTH_METHODS}")
    if profile and profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}")


def to_item(client: Client) -> records.Item:
    """The client's DynamoDB item."""
    return records.to_item(FIELDS, client._asdict())


def from_item(item: records.Item) -> Client:
    """A Client from a DynamoDB item (low-level attribute values)."""
    values = records.from_item(FIELDS, item)
    values["secret_hash"] = values["secret_hash"] or None
    return Client(**values)
