"""The Settings record: every deployment setting with its default (what an unset variable means)."""

from __future__ import annotations

from typing import NamedTuple

from authgate.settings.audit_trail import AuditTrail
from authgate.settings.limits import Limits
from authgate.settings.tables import Tables

# OIDC Dynamic Client Registration 1.0 2: id_token_signed_response_alg defaults to RS256.
ID_TOKEN_DEFAULT_ALG = "RS256"


class Settings(NamedTuple):
    """The deployment's settings; `authgate.settings.from_env` reads them, `get_settings` holds them."""

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
    # Where the audit trail is kept and sent (authgate.audit_trail; docs/audit.md).
    audit_trail: AuditTrail = AuditTrail()
    # -- clients that register themselves (docs/agents.md) --
    # draft-ietf-oauth-client-id-metadata-document: an https client_id is fetched (template
    # parameter ClientIdMetadataDocuments); each tenant's policy then says which hosts it accepts.
    client_metadata_documents: bool = False
    # The local stack only (`authgate serve --allow-loopback-outbound`, draft 8.6): every outbound request
    # (metadata documents, back-channel logout, approval webhooks, IdP keys) may reach 127.0.0.1 / ::1.
    # Refused on any other stage.
    allow_loopback_outbound: bool = False
    # The local stack only: the origin of its demo upstream identity provider (`authgate serve`), the one loopback
    # origin the OpenID Connect relying party may reach without the flag above (settings.federation).
    demo_upstream: str = ""
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
    # -- the operators' console (docs/console.md) --
    # The tenant whose users are the console's operators (template parameter OperatorsTenant).
    operators_tenant: str = "operators"
    # OpenID Connect Core 3.1.2.1 max_age of the console's sign-in, in seconds (template parameter
    # ConsoleMaxAgeSeconds): its session ends that long after the operator signed in.
    console_max_age: int = 12 * 3600
    # The function the console's "Rotate now" invokes for one signing-key rotation step (template:
    # RotateKeysFunction's ARN; the local stack answers its logical id, as tables go by theirs).
    rotate_keys_function: str = "RotateKeysFunction"

    @property
    def id_token_algs(self) -> tuple[str, ...]:
        """The algorithms ID tokens (and logout tokens) may be signed with, RS256 first: RS256 always
        (OIDC Discovery 1.0 3, OIDC Dynamic Client Registration 1.0 2's default) and the access
        tokens' own; the signing-key rotation keeps a key of each (tokens.rotation)."""
        return tuple(dict.fromkeys((ID_TOKEN_DEFAULT_ALG, self.signing_alg)))



# The defaults, written once (above): what an unset environment variable means.
DEFAULTS = Settings()
