"""A registered OAuth client (RFC 6749 2; metadata RFC 7591 2) and its secret (RFC 6749 2.3.1).

`FIELDS` is the one list of a client's attributes: it drives the DynamoDB item
(stores.clients), the admin listing's public view, and every Client built from values by name
(`client_of`: a seed, an admin command, a registration; `registered`: an administrator's new
client). To add a field, add it to `Client` and to `FIELDS`. Secrets are server-generated,
256-bit random values, so a single SHA-256 is the right hash (nothing to brute-force);
comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

from authgate import records
from authgate.records import Field
from authgate.request_protocol import ERROR_FORMATS
from authgate.settings import ID_TOKEN_DEFAULT_ALG

CLIENT_TYPES = ("confidential", "public")
ENVIRONMENTS = ("local", "staging", "production")
# -- client authentication and profile (RFC 7591 2, RFC 9126 6, FAPI 2.0) ---------------------------
# "" = as before these attributes: client_secret_basic/_post for a confidential client, none for
# a public one. private_key_jwt (RFC 7523 2.2) needs registered public keys (`jwks`).
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")
# Where a client came from (Client.source): "" an administrator registered it; "metadata_document" a
# cached Client ID Metadata Document (its client_id is the document's URL); "registration" RFC 7591.
ClientSource = Literal["", "metadata_document", "registration"]
DOCUMENT_SOURCE: ClientSource = "metadata_document"
REGISTRATION_SOURCE: ClientSource = "registration"
# A client id is at most this long (admin commands and stores refuse longer ones).
MAX_CLIENT_ID_LENGTH = 200
# The operators' console's own client (console.client): the stack writes it at each deploy and `authgate serve`.
CONSOLE_CLIENT_ID = "authgate-console"
# The FAPI 2.0 Security Profile (oauth.clients.profile says what it demands).
FAPI2 = "fapi2"
PROFILES = (FAPI2,)
# The ID-token algorithms authgate can sign with (a stack offers RS256 and its SigningAlgorithm:
# Settings.id_token_algs); never none (OIDC Core 3.1.3.7 item 7 for the code flow).
ID_TOKEN_ALGS = ("RS256", "ES256")
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
    source: ClientSource = ""
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
    # -- OpenID Connect RP-Initiated Logout 1.0 section 3.1: where a sign-out may send the browser back --
    post_logout_redirect_uris: tuple[str, ...] = ()
    # -- OpenID Connect Back-Channel Logout 1.0 2.2: where logout tokens are POSTed (clients.backchannel_logout) --
    backchannel_logout_uri: str = ""
    backchannel_logout_session_required: bool = False
    # -- OpenID Connect Dynamic Client Registration 1.0 2: the ID tokens' JWS alg ("": RS256) --
    id_token_signed_response_alg: str = ""
    # -- OpenID Connect CIBA Core 1.0 4: the token delivery mode a self-registered client stated ("" none; only
    # "poll" is offered) --
    backchannel_token_delivery_mode: str = ""

    @property
    def id_token_alg(self) -> str:
        """The algorithm this client's ID and logout tokens are signed with (OIDC Registration 2: RS256 by default)."""
        return self.id_token_signed_response_alg or ID_TOKEN_DEFAULT_ALG

    @property
    def auth_methods(self) -> tuple[str, ...]:
        """The token-endpoint authentication methods this client may use (RFC 7591 2)."""
        if self.token_endpoint_auth_method:
            return (self.token_endpoint_auth_method,)
        return ("none",) if self.is_public else ("client_secret_basic", "client_secret_post")

    @property
    def is_public(self) -> bool:
        return self.client_type == "public"

    def allows_grant(self, grant_type: str) -> bool:
        return grant_type in self.grant_types

    def granted_scopes(self, resource: str) -> tuple[str, ...]:
        """The scopes of registered resource `resource` an administrator granted this client (none: ())."""
        return next((scopes for uri, scopes in self.resource_scopes if uri == resource), ())

    def expired(self, now: int) -> bool:
        """Whether the record outlived its DynamoDB TTL: deletion is lazy (and moto never deletes)."""
        return 0 < self.expires_at <= now

    def public_view(self) -> dict[str, Any]:
        """What an admin listing shows: everything except the secret hash (effective auth method and ID-token alg)."""
        view = records.public_view(FIELDS, self._asdict())
        view["token_endpoint_auth_method"] = self.auth_methods[0]
        view["id_token_signed_response_alg"] = self.id_token_alg
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
    # -- OpenID Connect RP-Initiated Logout 1.0 3.1 --
    Field("post_logout_redirect_uris", "STRINGS", (), omit_empty=True),
    # -- OpenID Connect Back-Channel Logout 1.0 2.2 --
    Field("backchannel_logout_uri", "S", "", omit_empty=True),
    Field("backchannel_logout_session_required", "BOOL", False, omit_empty=True),
    # -- OpenID Connect Dynamic Client Registration 1.0 2 --
    Field("id_token_signed_response_alg", "S", "", omit_empty=True),
    # -- OpenID Connect CIBA Core 1.0 4 --
    Field("backchannel_token_delivery_mode", "S", "", omit_empty=True),
)


def client_secret_matches(client: Client | None, secret: str) -> bool:
    """True when `client` is confidential and `secret` hashes to its stored hash."""
    stored = client.secret_hash if client is not None and client.secret_hash else _DUMMY_HASH
    ok = hmac.compare_digest(hash_secret(secret), stored)
    return ok and client is not None and bool(client.secret_hash)


def check_registration(client: Client) -> None:
    """ValueError unless every enumerated registration value is one this server knows (RFC 7591 2)."""
    if client.client_type not in CLIENT_TYPES:
        raise ValueError(f"client_type must be one of {CLIENT_TYPES}")
    if client.error_format not in ERROR_FORMATS:
        raise ValueError(f"error_format must be one of {ERROR_FORMATS}")
    if client.environment not in ENVIRONMENTS:
        raise ValueError(f"environment must be one of {ENVIRONMENTS}")
    if client.token_endpoint_auth_method and client.token_endpoint_auth_method not in AUTH_METHODS:
        raise ValueError(f"token_endpoint_auth_method must be one of {AUTH_METHODS}")
    if client.profile and client.profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}")
    if client.id_token_signed_response_alg and client.id_token_signed_response_alg not in ID_TOKEN_ALGS:
        raise ValueError(f"id_token_signed_response_alg must be one of {ID_TOKEN_ALGS}")


def _keys(value: Any) -> tuple[dict[str, Any], ...]:
    # A JWK Set (RFC 7517 5) or its keys.
    return tuple(value.get("keys", ()) if isinstance(value, Mapping) else value)


def _pairs(value: Any) -> tuple[tuple[str, Any], ...]:
    # (key, value) pairs or a mapping; list values become tuples, the pairs sorted.
    pairs = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((k, v if isinstance(v, str) else tuple(v)) for k, v in pairs))


# How a value given by name becomes the Client's, by field kind (sequences are held as tuples).
_AS_HELD: dict[str, Callable[[Any], Any]] = {"STRINGS": tuple, "KEYS": _keys, "MAP": _pairs}
FIELD_NAMES = frozenset(f.name for f in FIELDS)


def client_of(values: Mapping[str, Any]) -> Client:
    """A Client from values by field name (a seed's JSON, an admin command, a registration): absent
    fields read as `FIELDS` says, sequences become tuples; unknown names are ignored."""
    held: dict[str, Any] = {}
    for f in FIELDS:
        value = values.get(f.name, f.missing)
        held[f.name] = value if value is None else _AS_HELD.get(f.kind, _same)(value)
    return Client(**held)


def _same(value: Any) -> Any:
    return value


def registered(values: Mapping[str, Any], *, stage: str, now: int,
               secret: str | None = None) -> tuple[Client, str | None]:
    """A client an administrator registers, from values by field name (None: not given), and its plaintext
    secret, shown ONCE: a confidential client gets one (`secret`, a local seed's known demo secret, or a
    new one) unless it proves itself with registered keys (private_key_jwt, RFC 7523 2.2); ValueError for
    an enumerated value this server does not know (RFC 7591 2)."""
    given = {name: value for name, value in values.items() if value is not None}
    client = client_of({"environment": stage, "created_at": now, **given})
    client = client._replace(client_id=client.client_id or f"client_{secrets.token_hex(8)}")
    check_registration(client)
    plaintext = None
    if client.client_type == "confidential" and client.token_endpoint_auth_method != "private_key_jwt":
        plaintext = secret or new_secret()
    return client._replace(secret_hash=hash_secret(plaintext) if plaintext else None), plaintext


def to_item(client: Client) -> records.Item:
    """The client's DynamoDB item."""
    return records.to_item(FIELDS, client._asdict())


def from_item(item: records.Item) -> Client:
    """A Client from a DynamoDB item (low-level attribute values)."""
    values = records.from_item(FIELDS, item)
    values["secret_hash"] = values["secret_hash"] or None
    return Client(**values)
