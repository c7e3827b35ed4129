"""Deployment settings: environment variables -> one frozen, validated object, built on first use.

Precedence follows Powertools: explicit argument > environment > default. Every environment
variable the service reads is named in this package and nowhere else. A bad value fails at cold
start with a message naming the variable. The record and its defaults are `model`; the variables
of a concept are read in its module (`tables`, `limits`, `sessions`, `self_registration`, `console`), one
variable at a time by `environment`; the stage's own (stage, stack, issuer, keys, mail) here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from authgate.caches import cached
from authgate.settings.audit_trail import AuditTrail, audit_trail
from authgate.settings.console import console
from authgate.settings.environment import SettingsError, boolean, choice, integer
from authgate.settings.federation import federation
from authgate.settings.limits import (
    MAX_TENANT_QUOTA,
    PARTITION_QUOTA_MAX,
    PARTITION_WRITE_RATE,
    Limits,
    limits,
)
from authgate.settings.model import DEFAULTS, ID_TOKEN_DEFAULT_ALG, Settings
from authgate.settings.self_registration import self_registration
from authgate.settings.sessions import session_lifetimes
from authgate.settings.tables import Tables, tables

__all__ = [
    "ID_TOKEN_DEFAULT_ALG",
    "MAX_TENANT_QUOTA",
    "PARTITION_QUOTA_MAX",
    "PARTITION_WRITE_RATE",
    "AuditTrail",
    "Limits",
    "Settings",
    "SettingsError",
    "Tables",
    "from_env",
    "get_settings",
    "log_level",
]

STAGES = {"local", "staging", "production"}
SIGNING_BACKENDS = {"local", "kms"}
SIGNING_ALGS = {"RS256", "ES256"}
# CloudFormation stack names: a letter, then letters, digits and hyphens, at most 128 characters.
_STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")


def _mail_from(env: Mapping[str, str]) -> str:
    """The From address: AUTHGATE_MAIL_FROM, else the identity when it is an address, else no-reply@ its domain."""
    identity = env.get("AUTHGATE_MAIL_IDENTITY", "")
    return env.get("AUTHGATE_MAIL_FROM") or (identity if "@" in identity or not identity else f"no-reply@{identity}")


def _stack(env: Mapping[str, str], stage: str) -> str:
    raw = env.get("AUTHGATE_STACK_NAME") or stage
    if not _STACK_NAME.match(raw):
        raise SettingsError(f"AUTHGATE_STACK_NAME must be a CloudFormation stack name, got {raw!r}")
    return raw


def from_env(env: Mapping[str, str] | None = None) -> Settings:
    """Build settings from the environment (defaults for what is unset)."""
    env = os.environ if env is None else env
    stage = choice(env, "AUTHGATE_STAGE", STAGES, DEFAULTS.stage)
    issuer = env.get("AUTHGATE_ISSUER", "").rstrip("/")
    if issuer and not issuer.startswith(("https://", "http://127.0.0.1", "http://localhost")):
        raise SettingsError(f"AUTHGATE_ISSUER must be an https URL, got {issuer!r}")
    return Settings(
        stage=stage,
        stack=_stack(env, stage),
        issuer=issuer,
        signing_backend=choice(env, "AUTHGATE_SIGNING_BACKEND", SIGNING_BACKENDS, DEFAULTS.signing_backend),
        signing_alg=choice(env, "AUTHGATE_SIGNING_ALG", SIGNING_ALGS, DEFAULTS.signing_alg),
        kms_signer_role=env.get("AUTHGATE_KMS_SIGNER_ROLE", DEFAULTS.kms_signer_role),
        kms_admin_role=env.get("AUTHGATE_KMS_ADMIN_ROLE", DEFAULTS.kms_admin_role),
        access_token_ttl=integer(env, "AUTHGATE_ACCESS_TOKEN_TTL", DEFAULTS.access_token_ttl, 60, 3600),
        refresh_token_ttl=integer(env, "AUTHGATE_REFRESH_TOKEN_TTL", DEFAULTS.refresh_token_ttl, 3600,
                                  400 * 24 * 3600),
        auth_code_ttl=integer(env, "AUTHGATE_AUTH_CODE_TTL", DEFAULTS.auth_code_ttl, 5, 600),
        leeway=integer(env, "AUTHGATE_LEEWAY", DEFAULTS.leeway, 0, 300),
        jwks_max_age=integer(env, "AUTHGATE_JWKS_MAX_AGE", DEFAULTS.jwks_max_age, 0, 3600),
        password_grant=boolean(env, "AUTHGATE_PASSWORD_GRANT", DEFAULTS.password_grant),
        default_tenant=env.get("AUTHGATE_DEFAULT_TENANT", DEFAULTS.default_tenant),
        mail_identity=env.get("AUTHGATE_MAIL_IDENTITY", ""),
        mail_from=_mail_from(env),
        outbox=env.get("AUTHGATE_OUTBOX", ""),
        deliveries_queue=env.get("AUTHGATE_DELIVERIES_QUEUE", ""),
        require_par=boolean(env, "AUTHGATE_REQUIRE_PAR", DEFAULTS.require_par),
        dpop_nonces=boolean(env, "AUTHGATE_DPOP_NONCES", DEFAULTS.dpop_nonces),
        session_secret_arn=env.get("AUTHGATE_SESSION_SECRET_ARN", ""),
        session_secret=env.get("AUTHGATE_SESSION_SECRET", ""),
        aws_endpoint_url=env.get("AUTHGATE_AWS_ENDPOINT_URL", ""),
        aws_region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or DEFAULTS.aws_region,
        max_body_bytes=integer(env, "AUTHGATE_MAX_BODY_BYTES", DEFAULTS.max_body_bytes, 1024, 6 * 1024 * 1024),
        tables=tables(env),
        limits=limits(env),
        audit_trail=audit_trail(env),
    )._replace(**self_registration(env, stage), **session_lifetimes(env), **federation(env, stage),
                 **console(env))


def log_level() -> str:
    """The log level (POWERTOOLS_LOG_LEVEL, as the template names it, or LOG_LEVEL); INFO when
    unset or not a level. Never raises: a misconfigured deployment still logs why."""
    raw = (os.environ.get("POWERTOOLS_LOG_LEVEL") or os.environ.get("LOG_LEVEL") or "INFO").upper()
    return raw if raw in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL") else "INFO"


@cached
def get_settings() -> Settings:
    """The process-wide settings, built on first use (never at import); `caches.reset()` forgets them."""
    return from_env()
