"""ClientsTable: registered OAuth clients (RFC 6749 §2) and their hashed secrets.

Secrets are server-generated, 256-bit random values, so a single SHA-256 is the right hash
(no per-request KDF: nothing to brute-force); comparison is constant-time. Reads are strongly
consistent so a rotated-out secret stops working at once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from authgate import clock
from authgate.settings import get_settings
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.exceptions import ClientExists, ClientNotFound
from authgate.stores.faults import dynamodb_faults

CLIENT_TYPES = ("confidential", "public")
ERROR_FORMATS = ("problem", "legacy-a", "legacy-b")
ENVIRONMENTS = ("local", "staging", "production")
# -- client authentication and profile (RFC 7591 2, RFC 9126 6, FAPI 2.0) ---------------------------
# "" = as before these attributes: client_secret_basic/_post for a confidential client, none for
# a public one. private_key_jwt (RFC 7523 2.2) needs registered public keys (`jwks`).
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")
PROFILES = ("fapi2",)
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

    def public_view(self) -> dict[str, Any]:
        """What an admin listing shows: everything except the secret hash."""
        return {
            "client_id": self.client_id, "tenant_id": self.tenant_id, "environment": self.environment,
            "client_type": self.client_type, "redirect_uris": list(self.redirect_uris),
            "grant_types": list(self.grant_types), "scopes": list(self.scopes),
            "error_format": self.error_format, "requires_admin_approval": self.requires_admin_approval,
            "name": self.name, "created_at": self.created_at,
            "jwks": {"keys": list(self.jwks)}, "token_endpoint_auth_method": self.auth_methods[0],
            "require_pushed_authorization_requests": self.require_pushed_authorization_requests,
            "profile": self.profile,
            "dpop_bound_access_tokens": self.dpop_bound_access_tokens,
        }


def client_secret_matches(client: Client | None, secret: str) -> bool:
    """True when `client` is confidential and `secret` hashes to its stored hash."""
    stored = client.secret_hash if client is not None and client.secret_hash else _DUMMY_HASH
    ok = hmac.compare_digest(hash_secret(secret), stored)
    return ok and client is not None and bool(client.secret_hash)


# Origin records share ClientsTable with the clients: key "origin <environment> <origin>", an
# attribute `clients` holding the ids of the public clients whose redirect URIs have that origin.
# A space never appears in a registered client_id (authgate_cli.admin.validation), so an origin
# record can never be read as a client, and ids that start with the prefix are refused.
ORIGIN_PREFIX = "origin "


def origin_record_id(environment: str, origin: str) -> str:
    return f"{ORIGIN_PREFIX}{environment} {origin}"


def browser_origins(client: Client) -> set[str]:
    """The web origins (RFC 6454) of a public client's redirect URIs: where its code runs."""
    from authgate.http.cors import origin_of

    if not client.is_public:
        return set()
    return {o for o in (origin_of(uri) for uri in client.redirect_uris) if o}


def _to_item(c: Client) -> dict[str, Any]:
    item: dict[str, Any] = {
        "client_id": {"S": c.client_id}, "tenant_id": {"S": c.tenant_id},
        "environment": {"S": c.environment}, "client_type": {"S": c.client_type},
        "redirect_uris": {"L": [{"S": u} for u in c.redirect_uris]},
        "grant_types": {"L": [{"S": g} for g in c.grant_types]},
        "scopes": {"L": [{"S": s} for s in c.scopes]},
        "error_format": {"S": c.error_format},
        "requires_admin_approval": {"BOOL": c.requires_admin_approval},
        "name": {"S": c.name}, "created_at": {"N": str(c.created_at)},
    }
    if c.secret_hash:
        item["secret_hash"] = {"S": c.secret_hash}
    if c.jwks:
        item["jwks"] = {"S": json.dumps({"keys": list(c.jwks)}, separators=(",", ":"))}
    if c.token_endpoint_auth_method:
        item["token_endpoint_auth_method"] = {"S": c.token_endpoint_auth_method}
    if c.require_pushed_authorization_requests:
        item["require_pushed_authorization_requests"] = {"BOOL": True}
    if c.profile:
        item["profile"] = {"S": c.profile}
    # -- DPoP (RFC 9449 5.2) --
    if c.dpop_bound_access_tokens:
        item["dpop_bound_access_tokens"] = {"BOOL": True}
    # -- clients that register themselves --
    if c.source:
        item["source"] = {"S": c.source}
    if c.refresh_at:
        item["refresh_at"] = {"N": str(c.refresh_at)}
    if c.expires_at:
        item["expires_at"] = {"N": str(c.expires_at)}
    if c.registration_token_hash:
        item["registration_token_hash"] = {"S": c.registration_token_hash}
    if c.registration_pool:
        item["registration_pool"] = {"S": c.registration_pool}
    return item


def _jwks(attr: dict[str, Any] | None) -> tuple[dict[str, Any], ...]:
    if not attr or "S" not in attr:
        return ()
    keys = json.loads(attr["S"]).get("keys", [])
    return tuple(k for k in keys if isinstance(k, dict))


def _strings(attr: dict[str, Any] | None) -> tuple[str, ...]:
    if not attr:
        return ()
    if "L" in attr:
        return tuple(v["S"] for v in attr["L"] if "S" in v)
    return tuple(sorted(attr.get("SS", ())))


def from_item(item: dict[str, Any]) -> Client:
    """A Client from a DynamoDB item (low-level attribute values)."""
    return Client(
        client_id=item["client_id"]["S"],
        tenant_id=item.get("tenant_id", {}).get("S", ""),
        environment=item.get("environment", {}).get("S", "local"),
        client_type=item.get("client_type", {}).get("S", "confidential"),
        secret_hash=item.get("secret_hash", {}).get("S") or None,
        redirect_uris=_strings(item.get("redirect_uris")),
        grant_types=_strings(item.get("grant_types")),
        scopes=_strings(item.get("scopes")),
        error_format=item.get("error_format", {}).get("S", "problem"),
        requires_admin_approval=bool(item.get("requires_admin_approval", {}).get("BOOL", False)),
        name=item.get("name", {}).get("S", ""),
        created_at=int(item.get("created_at", {}).get("N", "0")),
        jwks=_jwks(item.get("jwks")),
        token_endpoint_auth_method=item.get("token_endpoint_auth_method", {}).get("S", ""),
        require_pushed_authorization_requests=bool(
            item.get("require_pushed_authorization_requests", {}).get("BOOL", False)),
        profile=item.get("profile", {}).get("S", ""),
        # -- DPoP (RFC 9449 5.2) --
        dpop_bound_access_tokens=bool(item.get("dpop_bound_access_tokens", {}).get("BOOL", False)),
        source=item.get("source", {}).get("S", ""),
        refresh_at=int(item.get("refresh_at", {}).get("N", "0")),
        expires_at=int(item.get("expires_at", {}).get("N", "0")),
        registration_token_hash=item.get("registration_token_hash", {}).get("S", ""),
        registration_pool=item.get("registration_pool", {}).get("S", ""),
    )


class ClientStore:
    """Reads and writes ClientsTable; a client of another environment reads as unknown."""

    def __init__(self, dynamodb: Any = None, table: str | None = None) -> None:
        if dynamodb is None:
            from authgate.aws import dynamodb as default_client

            dynamodb = default_client()
        self._ddb = dynamodb
        self.table = table or get_settings().tables.clients

    def key(self, client_id: str) -> dict[str, Any]:
        return {"client_id": {"S": client_id}}

    def get(self, client_id: str, *, any_environment: bool = False) -> Client | None:
        """The client, or None when unknown or registered for another environment (contract 5.3)."""
        if not client_id or len(client_id) > 200 or client_id.startswith(ORIGIN_PREFIX):
            return None
        with dynamodb_faults("clients.get"):
            item = self._ddb.get_item(TableName=self.table, Key=self.key(client_id),
                                      ConsistentRead=True).get("Item")
        return self.visible(from_item(item), any_environment) if item else None

    def get_with(self, client_id: str, extra: dict[str, list[dict[str, Any]]]
                 ) -> tuple[Client | None, dict[str, list[dict[str, Any]]]]:
        """The client plus other items (e.g. limiter counters) in ONE strongly consistent BatchGetItem.

        Returns the client (None if unknown or of another environment) and the other tables'
        items by table name.
        """
        reads = BatchRead(self._ddb, "clients.batch_get")
        others = {table: [reads.add(table, key) for key in keys] for table, keys in extra.items()}
        client = self.prefetch(reads, client_id)
        reads.run()
        return (self.found(client),
                {table: [item for p in pending if (item := p.item) is not None] for table, pending in others.items()})

    def prefetch(self, reads: BatchRead, client_id: str) -> Pending | None:
        """Register the client's record in the request's batch read (None: an id no client can have)."""
        if not client_id or len(client_id) > 200 or client_id.startswith(ORIGIN_PREFIX):
            return None
        return reads.add(self.table, self.key(client_id))

    def found(self, pending: Pending | None) -> Client | None:
        """The client a prefetched read found (None if unknown or of another environment)."""
        item = pending.item if pending is not None else None
        return self.visible(from_item(item)) if item else None

    @staticmethod
    def visible(client: Client, any_environment: bool = False) -> Client | None:
        if any_environment or client.environment == get_settings().stage:
            return client
        return None

    def create(self, *, tenant_id: str, name: str = "", client_type: str = "confidential",
               redirect_uris: Iterable[str] = (), grant_types: Iterable[str] = (),
               scopes: Iterable[str] = (), error_format: str = "problem",
               requires_admin_approval: bool = False, client_id: str | None = None,
               environment: str | None = None, secret: str | None = None,
               jwks: Iterable[dict[str, Any]] = (), token_endpoint_auth_method: str = "",
               require_pushed_authorization_requests: bool = False,
               profile: str = "", dpop_bound_access_tokens: bool = False) -> tuple[Client, str | None]:
        """Register a client; returns it and its plaintext secret (confidential only), shown ONCE.

        `secret` lets a local seed fix a known demo secret; otherwise one is generated. A
        private_key_jwt client gets no secret: it proves itself with its registered keys.
        """
        if client_type not in CLIENT_TYPES:
            raise ValueError(f"client_type must be one of {CLIENT_TYPES}")
        if error_format not in ERROR_FORMATS:
            raise ValueError(f"error_format must be one of {ERROR_FORMATS}")
        environment = environment or get_settings().stage
        if environment not in ENVIRONMENTS:
            raise ValueError(f"environment must be one of {ENVIRONMENTS}")
        if token_endpoint_auth_method and token_endpoint_auth_method not in AUTH_METHODS:
            raise ValueError(f"token_endpoint_auth_method must be one of {AUTH_METHODS}")
        if profile and profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}")
        plaintext = None
        if client_type == "confidential" and token_endpoint_auth_method != "private_key_jwt":
            plaintext = secret or new_secret()
        client = Client(
            client_id=client_id or f"client_{secrets.token_hex(8)}", tenant_id=tenant_id,
            environment=environment, client_type=client_type,
            secret_hash=hash_secret(plaintext) if plaintext else None,
            redirect_uris=tuple(redirect_uris), grant_types=tuple(grant_types), scopes=tuple(scopes),
            error_format=error_format, requires_admin_approval=requires_admin_approval, name=name,
            created_at=clock.seconds(), jwks=tuple(jwks), token_endpoint_auth_method=token_endpoint_auth_method,
            require_pushed_authorization_requests=require_pushed_authorization_requests, profile=profile,
            dpop_bound_access_tokens=dpop_bound_access_tokens,
        )
        with dynamodb_faults("clients.create", refused=lambda: ClientExists(client.client_id)):
            self._ddb.put_item(TableName=self.table, Item=_to_item(client),
                               ConditionExpression="attribute_not_exists(client_id)")
        self._index_origins(client)
        return client, plaintext

    def put(self, client: Client) -> None:
        """Write a client as given (seed loading; replaces an existing record)."""
        with dynamodb_faults("clients.put"):
            self._ddb.put_item(TableName=self.table, Item=_to_item(client))
        self._index_origins(client)

    def create_record(self, client: Client) -> None:
        """Write a new self-registered client as it is (RFC 7591); ClientExists if the id is taken."""
        with dynamodb_faults("clients.create", refused=lambda: ClientExists(client.client_id)):
            self._ddb.put_item(TableName=self.table, Item=_to_item(client),
                               ConditionExpression="attribute_not_exists(client_id)")

    def save(self, client: Client) -> None:
        """Write a self-registered client's record as it is (a metadata document's cache entry):
        no origin index, whose records would outlive it. Never over a record of another source (an
        administrator's client under the same id): ClientExists then."""
        with dynamodb_faults("clients.save", refused=lambda: ClientExists(client.client_id)):
            self._ddb.put_item(TableName=self.table, Item=_to_item(client),
                               ConditionExpression="attribute_not_exists(client_id) OR #source = :source",
                               ExpressionAttributeNames={"#source": "source"},
                               ExpressionAttributeValues={":source": {"S": client.source}})

    def replace(self, client: Client) -> None:
        """Rewrite an existing client's registration (admin updates); ClientNotFound if it is gone."""
        with dynamodb_faults("clients.replace", refused=lambda: ClientNotFound(client.client_id)):
            self._ddb.put_item(TableName=self.table, Item=_to_item(client),
                               ConditionExpression="attribute_exists(client_id)")

    def _index_origins(self, client: Client) -> None:
        """Record the client under each of its browser origins (one UpdateItem per origin)."""
        for origin in sorted(browser_origins(client)):
            with dynamodb_faults("clients.index_origin"):
                self._ddb.update_item(
                    TableName=self.table, Key=self.key(origin_record_id(client.environment, origin)),
                    UpdateExpression="ADD clients :c", ExpressionAttributeValues={":c": {"SS": [client.client_id]}})

    def origin_allowed(self, origin: str) -> bool:
        """Whether a public client of this environment has a redirect URI on `origin` (one GetItem)."""
        if not origin or len(origin) > 300:
            return False
        with dynamodb_faults("clients.origin"):
            item = self._ddb.get_item(TableName=self.table,
                                      Key=self.key(origin_record_id(get_settings().stage, origin))).get("Item")
        return bool(item and item.get("clients", {}).get("SS"))

    def rotate_secret(self, client_id: str) -> str:
        """Replace the secret of a confidential client; the old one fails from the next request."""

        secret = new_secret()
        with dynamodb_faults("clients.rotate_secret", refused=lambda: ClientNotFound(client_id)):
            # Only an existing confidential client has a secret to rotate.
            self._ddb.update_item(
                TableName=self.table, Key=self.key(client_id),
                UpdateExpression="SET secret_hash = :h",
                ConditionExpression="attribute_exists(client_id) AND client_type = :c",
                ExpressionAttributeValues={":h": {"S": hash_secret(secret)}, ":c": {"S": "confidential"}},
            )
        return secret

    def list(self) -> Iterator[Client]:
        """Every client of every environment (admin listing)."""
        kwargs: dict[str, Any] = {"TableName": self.table}
        while True:
            with dynamodb_faults("clients.list"):
                page = self._ddb.scan(**kwargs)
            for item in page.get("Items", []):
                if not item["client_id"]["S"].startswith(ORIGIN_PREFIX):
                    yield from_item(item)
            if not page.get("LastEvaluatedKey"):
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def seed(items: list[dict[str, Any]], dynamodb: Any = None) -> int:
    """Seed loader: plaintext `secret` in the seed is hashed on load; records are replaced."""
    store = ClientStore(dynamodb)
    for raw in items:
        secret = raw.get("secret")
        client_type = raw.get("client_type") or ("confidential" if secret else "public")
        store.put(Client(
            client_id=raw["client_id"], tenant_id=raw["tenant_id"],
            environment=raw.get("environment") or get_settings().stage, client_type=client_type,
            secret_hash=hash_secret(secret) if secret else None,
            redirect_uris=tuple(raw.get("redirect_uris", ())), grant_types=tuple(raw.get("grant_types", ())),
            scopes=tuple(raw.get("scopes", ())), error_format=raw.get("error_format", "problem"),
            requires_admin_approval=bool(raw.get("requires_admin_approval", False)),
            name=raw.get("name", raw["client_id"]), created_at=clock.seconds(),
            jwks=tuple(raw.get("jwks", {}).get("keys", ())),
            token_endpoint_auth_method=raw.get("token_endpoint_auth_method", ""),
            require_pushed_authorization_requests=bool(raw.get("require_pushed_authorization_requests", False)),
            profile=raw.get("profile", ""),
            dpop_bound_access_tokens=bool(raw.get("dpop_bound_access_tokens", False)),
        ))
    return len(items)
