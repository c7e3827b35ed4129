"""Deployment settings: environment variables -> one frozen, validated object, built on first use.

Precedence follows Powertools: explicit argument > environment > default. Every environment
variable the service reads is named here and nowhere else. A bad value fails at cold start
with a message naming the variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from authgate.caches import cached

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
}


class SettingsError(ValueError):
    """A deployment setting is missing or invalid; the message names the variable."""


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


class Limits(NamedTuple):
    """In-Lambda rate limits (docs/limits.md): fixed windows, quotas in requests per window."""

    # API routes: one window shared by the per-tenant, per-client and per-source-IP quotas.
    window: int = 60
    tenant: int = 3000
    client: int = 1200
    ip: int = 600
    # Failed client authentications at the token endpoint (and failed logins), per window.
    auth_failure_window: int = 300
    auth_failure_client: int = 10
    auth_failure_ip: int = 30


# Limits of one limiter item (authgate.limits.partitions). Every admitted request adds at most two
# ~18-byte counters, so 10 000 admissions per window keep an item well under DynamoDB's 400 KB;
# 500 writes per second leave half of one partition's 1 000 WCU/s for refusals and growth.
PARTITION_QUOTA_MAX = 10_000
PARTITION_WRITE_RATE = 500
# A tenant quota is split into at most this many partitions (items) per window.
MAX_PARTITIONS = 256
MAX_TENANT_QUOTA = MAX_PARTITIONS * PARTITION_QUOTA_MAX
# One client's counter lives in one item: at most this many admissions per window per client.
MAX_CLIENT_QUOTA = 30_000


# OIDC Dynamic Client Registration 1.0 2: id_token_signed_response_alg defaults to RS256.
ID_TOKEN_DEFAULT_ALG = "RS256"


class Settings(NamedTuple):
    stage: str = "local"
    # The CloudFormation stack (AWS::StackName): names and tags the signing keys it creates, so
    # two stacks of one stage in one account never read each other's keys. Locally: the stage.
    stack: str = "local"
    # Empty: derive from the request (API Gateway domain + stage, or the local emulator's URL).
    issuer: str = ""
    signing_backend: str = "local"
    signing_alg: str = "RS256"
    # SigningBackend=kms: the roles a new key's policy names at CreateKey (the token function's,
    # which signs; the rotation function's, which reads and retires), so neither waits for the
    # key's tags to reach authorization (docs/tokens-and-keys.md). Empty outside AWS.
    kms_signer_role: str = ""
    kms_admin_role: str = ""
    access_token_ttl: int = 900
    refresh_token_ttl: int = 30 * 24 * 3600
    # A sign-in session's absolute lifetime and idle timeout, in seconds (template parameters
    # SessionLifetimeSeconds, SessionIdleSeconds; authgate.sessions.model, docs/oidc.md).
    session_lifetime: int = 12 * 3600
    session_idle: int = 2 * 3600
    auth_code_ttl: int = 60
    leeway: int = 120
    # JWKS responses are cacheable for this long; key publication leads signing by more.
    jwks_max_age: int = 300
    password_grant: bool = False
    # The tenant a sign-in is for when nothing else names one (template parameter DefaultTenant;
    # the local stack's is demo): docs/users.md, "Which organisation".
    default_tenant: str = ""
    # Mail (authgate.mail): the SES identity a stage sends from (template parameter MailIdentity) and
    # its From address; the local stack's outbox file instead (AUTHGATE_OUTBOX, `authgate serve` only).
    mail_identity: str = ""
    mail_from: str = ""
    outbox: str = ""
    # The queue of outbound deliveries (back-channel logout: authgate.deliveries), its URL (template
    # DeliveriesQueue); empty: nothing is delivered.
    deliveries_queue: str = ""
    # Every client must push its authorization requests (RFC 9126 5 metadata
    # require_pushed_authorization_requests); per client it is a registration attribute.
    require_par: bool = False
    # RFC 9449 8, 9: ask DPoP clients for server nonces (tokens.dpop_nonce).
    dpop_nonces: bool = False
    session_secret_arn: str = ""
    # Local development only: lets the emulator hand a fixed session secret to the handlers.
    session_secret: str = ""
    aws_endpoint_url: str = ""
    aws_region: str = "us-east-1"
    max_body_bytes: int = 64 * 1024
    tables: Tables = Tables()
    limits: Limits = Limits()
    # -- clients that register themselves (docs/agents.md) --
    # draft-ietf-oauth-client-id-metadata-document: an https client_id is fetched (template
    # parameter ClientIdMetadataDocuments); each tenant's policy then says which hosts it accepts.
    client_metadata_documents: bool = False
    # The local stack only (`authgate serve --allow-loopback-client-metadata`, draft 8.6): documents
    # on 127.0.0.1 / ::1 may be fetched. Refused on any other stage.
    allow_loopback_client_metadata: bool = False
    # Fetch budgets per minute (LimitsTable; oauth.clients.metadata_document.budget): per host, of new documents
    # and, apart, of refreshes; new documents per requesting address; each kind across the deployment.
    client_metadata_fetch_limit: int = 30
    client_metadata_source_limit: int = 10
    client_metadata_deployment_limit: int = 600
    # The cache lifetime's bounds (draft 5.2).
    client_metadata_min_cache: int = 300
    client_metadata_max_cache: int = 86400
    # RFC 7591 dynamic registration (template parameter DynamicClientRegistration): off by default;
    # registrations per source address per hour; unassigned registrations the deployment holds;
    # days an unused registered client lives (DynamoDB TTL, pushed back on use).
    dynamic_registration: bool = False
    registration_rate: int = 20
    registration_cap: int = 1000
    registration_idle_days: int = 30

    @property
    def id_token_algs(self) -> tuple[str, ...]:
        """The algorithms ID tokens (and logout tokens) may be signed with, RS256 first: RS256 always
        (OIDC Discovery 1.0 3, OIDC Dynamic Client Registration 1.0 2's default) and the access
        tokens' own; the signing-key rotation keeps a key of each (tokens.rotation)."""
        return tuple(dict.fromkeys((ID_TOKEN_DEFAULT_ALG, self.signing_alg)))


# The defaults, written once (above): what an unset environment variable means.
_DEFAULTS = Settings()
_LIMITS = Limits()

_VALID = {
    "stage": {"local", "staging", "production"},
    "signing_backend": {"local", "kms"},
    "signing_alg": {"RS256", "ES256"},
}


def _int(env: Mapping[str, str], name: str, default: int, lo: int, hi: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from None
    if not lo <= value <= hi:
        raise SettingsError(f"{name} must be between {lo} and {hi}, got {value}")
    return value


def _mail_from(env: Mapping[str, str]) -> str:
    """The From address: AUTHGATE_MAIL_FROM, else the identity when it is an address, else no-reply@ its domain."""
    identity = env.get("AUTHGATE_MAIL_IDENTITY", "")
    return env.get("AUTHGATE_MAIL_FROM") or (identity if "@" in identity or not identity else f"no-reply@{identity}")


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in {"true", "1", "yes"}:
        return True
    if raw.lower() in {"false", "0", "no"}:
        return False
    raise SettingsError(f"{name} must be true or false, got {raw!r}")


def _choice(env: Mapping[str, str], name: str, attr: str, default: str) -> str:
    raw = env.get(name) or default
    if raw not in _VALID[attr]:
        raise SettingsError(f"{name} must be one of {sorted(_VALID[attr])}, got {raw!r}")
    return raw


# CloudFormation stack names: a letter, then letters, digits and hyphens, at most 128 characters.
_STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")


def _stack(env: Mapping[str, str], stage: str) -> str:
    raw = env.get("AUTHGATE_STACK_NAME") or stage
    if not _STACK_NAME.match(raw):
        raise SettingsError(f"AUTHGATE_STACK_NAME must be a CloudFormation stack name, got {raw!r}")
    return raw


def _limits(env: Mapping[str, str]) -> Limits:
    limits = Limits(
        window=_int(env, "AUTHGATE_RATE_WINDOW", _LIMITS.window, 1, 3600),
        tenant=_int(env, "AUTHGATE_RATE_TENANT", _LIMITS.tenant, 1, MAX_TENANT_QUOTA),
        client=_int(env, "AUTHGATE_RATE_CLIENT", _LIMITS.client, 1, MAX_CLIENT_QUOTA),
        ip=_int(env, "AUTHGATE_RATE_IP", _LIMITS.ip, 1, PARTITION_QUOTA_MAX),
        auth_failure_window=_int(env, "AUTHGATE_AUTH_FAILURE_WINDOW", _LIMITS.auth_failure_window, 10, 86400),
        auth_failure_client=_int(env, "AUTHGATE_AUTH_FAILURE_CLIENT", _LIMITS.auth_failure_client, 1, 100_000),
        auth_failure_ip=_int(env, "AUTHGATE_AUTH_FAILURE_IP", _LIMITS.auth_failure_ip, 1, 100_000),
    )
    # A client's requests all count in one item: faster than that item takes writes is a hot item.
    if limits.client > PARTITION_WRITE_RATE * limits.window:
        raise SettingsError(f"AUTHGATE_RATE_CLIENT must be at most {PARTITION_WRITE_RATE} per second "
                            f"({PARTITION_WRITE_RATE * limits.window} per {limits.window} s window), got {limits.client}")
    return limits


def from_env(env: Mapping[str, str] | None = None) -> Settings:
    """Build settings from the environment (defaults for what is unset)."""
    env = os.environ if env is None else env
    stage = _choice(env, "AUTHGATE_STAGE", "stage", _DEFAULTS.stage)
    issuer = env.get("AUTHGATE_ISSUER", "").rstrip("/")
    if issuer and not issuer.startswith(("https://", "http://127.0.0.1", "http://localhost")):
        raise SettingsError(f"AUTHGATE_ISSUER must be an https URL, got {issuer!r}")
    tables = Tables(**{name: env.get(TABLE_ENV[name]) or getattr(_DEFAULTS.tables, name) for name in Tables._fields})
    return Settings(
        stage=stage,
        stack=_stack(env, stage),
        issuer=issuer,
        signing_backend=_choice(env, "AUTHGATE_SIGNING_BACKEND", "signing_backend", _DEFAULTS.signing_backend),
        signing_alg=_choice(env, "AUTHGATE_SIGNING_ALG", "signing_alg", _DEFAULTS.signing_alg),
        kms_signer_role=env.get("AUTHGATE_KMS_SIGNER_ROLE", _DEFAULTS.kms_signer_role),
        kms_admin_role=env.get("AUTHGATE_KMS_ADMIN_ROLE", _DEFAULTS.kms_admin_role),
        access_token_ttl=_int(env, "AUTHGATE_ACCESS_TOKEN_TTL", _DEFAULTS.access_token_ttl, 60, 3600),
        refresh_token_ttl=_int(env, "AUTHGATE_REFRESH_TOKEN_TTL", _DEFAULTS.refresh_token_ttl, 3600, 400 * 24 * 3600),
        auth_code_ttl=_int(env, "AUTHGATE_AUTH_CODE_TTL", _DEFAULTS.auth_code_ttl, 5, 600),
        leeway=_int(env, "AUTHGATE_LEEWAY", _DEFAULTS.leeway, 0, 300),
        jwks_max_age=_int(env, "AUTHGATE_JWKS_MAX_AGE", _DEFAULTS.jwks_max_age, 0, 3600),
        password_grant=_bool(env, "AUTHGATE_PASSWORD_GRANT", _DEFAULTS.password_grant),
        default_tenant=env.get("AUTHGATE_DEFAULT_TENANT", _DEFAULTS.default_tenant),
        mail_identity=env.get("AUTHGATE_MAIL_IDENTITY", ""),
        mail_from=_mail_from(env),
        outbox=env.get("AUTHGATE_OUTBOX", ""),
        deliveries_queue=env.get("AUTHGATE_DELIVERIES_QUEUE", ""),
        require_par=_bool(env, "AUTHGATE_REQUIRE_PAR", _DEFAULTS.require_par),
        dpop_nonces=_bool(env, "AUTHGATE_DPOP_NONCES", _DEFAULTS.dpop_nonces),
        session_secret_arn=env.get("AUTHGATE_SESSION_SECRET_ARN", ""),
        session_secret=env.get("AUTHGATE_SESSION_SECRET", ""),
        aws_endpoint_url=env.get("AUTHGATE_AWS_ENDPOINT_URL", ""),
        aws_region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or _DEFAULTS.aws_region,
        max_body_bytes=_int(env, "AUTHGATE_MAX_BODY_BYTES", _DEFAULTS.max_body_bytes, 1024, 6 * 1024 * 1024),
        tables=tables,
        limits=_limits(env),
    )._replace(**_self_registration(env, stage), **_session_lifetimes(env))


def _session_lifetimes(env: Mapping[str, str]) -> dict[str, Any]:
    """A session's absolute lifetime (5 minutes to 30 days) and idle timeout (1 minute to the lifetime)."""
    lifetime = _int(env, "AUTHGATE_SESSION_LIFETIME", _DEFAULTS.session_lifetime, 300, 30 * 24 * 3600)
    idle = _int(env, "AUTHGATE_SESSION_IDLE", min(_DEFAULTS.session_idle, lifetime), 60, 30 * 24 * 3600)
    if idle > lifetime:
        raise SettingsError(f"AUTHGATE_SESSION_IDLE ({idle}) must not exceed AUTHGATE_SESSION_LIFETIME ({lifetime})")
    return {"session_lifetime": lifetime, "session_idle": idle}


def _self_registration(env: Mapping[str, str], stage: str) -> dict[str, Any]:
    """The settings of clients that register themselves (client metadata documents, docs/agents.md)."""
    d = _DEFAULTS
    loopback = _bool(env, "AUTHGATE_ALLOW_LOOPBACK_CLIENT_METADATA", d.allow_loopback_client_metadata)
    if loopback and stage != "local":
        raise SettingsError("AUTHGATE_ALLOW_LOOPBACK_CLIENT_METADATA is for the local stack only "
                            f"(AUTHGATE_STAGE=local), not {stage}")
    low = _int(env, "AUTHGATE_CLIENT_METADATA_MIN_CACHE", d.client_metadata_min_cache, 60, 86400)
    return {
        "client_metadata_documents": _bool(env, "AUTHGATE_CLIENT_METADATA_DOCUMENTS", d.client_metadata_documents),
        "allow_loopback_client_metadata": loopback,
        "client_metadata_fetch_limit": _int(env, "AUTHGATE_CLIENT_METADATA_FETCH_LIMIT",
                                            d.client_metadata_fetch_limit, 1, 10_000),
        "client_metadata_source_limit": _int(env, "AUTHGATE_CLIENT_METADATA_SOURCE_LIMIT",
                                             d.client_metadata_source_limit, 1, 10_000),
        "client_metadata_deployment_limit": _int(env, "AUTHGATE_CLIENT_METADATA_DEPLOYMENT_LIMIT",
                                                 d.client_metadata_deployment_limit, 1, 100_000),
        "client_metadata_min_cache": low,
        "client_metadata_max_cache": _int(env, "AUTHGATE_CLIENT_METADATA_MAX_CACHE", d.client_metadata_max_cache,
                                          low, 7 * 86400),
        "dynamic_registration": _bool(env, "AUTHGATE_DYNAMIC_REGISTRATION", d.dynamic_registration),
        "registration_rate": _int(env, "AUTHGATE_REGISTRATION_RATE", d.registration_rate, 1, 10_000),
        "registration_cap": _int(env, "AUTHGATE_REGISTRATION_CAP", d.registration_cap, 1, 1_000_000),
        "registration_idle_days": _int(env, "AUTHGATE_REGISTRATION_IDLE_DAYS", d.registration_idle_days, 1, 400),
    }


def log_level() -> str:
    """The log level (POWERTOOLS_LOG_LEVEL, as the template names it, or LOG_LEVEL); INFO when
    unset or not a level. Never raises: a misconfigured deployment still logs why."""
    raw = (os.environ.get("POWERTOOLS_LOG_LEVEL") or os.environ.get("LOG_LEVEL") or "INFO").upper()
    return raw if raw in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL") else "INFO"


@cached
def get_settings() -> Settings:
    """The process-wide settings, built on first use (never at import); `caches.reset()` forgets them."""
    return from_env()
