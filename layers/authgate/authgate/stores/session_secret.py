"""The stack's session secret (Secrets Manager SessionSecret): the consent form's MAC key, and the
key DPoP nonces are derived from (tokens.dpop_nonce). Read once per container, on first use.
"""

from __future__ import annotations

import base64
import secrets

from authgate.caches import cached
from authgate.errors import ApiError
from authgate.settings import get_settings
from authgate.stores.faults import aws_faults


@cached
def session_secret() -> bytes:
    """settings.session_secret locally, else the Secrets Manager secret (cached warm)."""
    settings = get_settings()
    if settings.session_secret:
        return settings.session_secret.encode("utf-8")
    if settings.session_secret_arn:
        from authgate.aws import secretsmanager

        # Same fault mapping as storage: throttling/timeouts are temporarily_unavailable.
        with aws_faults("secretsmanager.get_secret_value"):
            secret = secretsmanager().get_secret_value(SecretId=settings.session_secret_arn)
        value = secret.get("SecretString") or base64.b64encode(secret.get("SecretBinary", b"")).decode()
        if len(value) < 32:
            raise ApiError("internal_error", internal="session secret is shorter than 32 characters")
        return value.encode("utf-8")
    if settings.stage == "local":
        # A local process with no configured secret: valid for this process only.
        return secrets.token_bytes(32)
    raise ApiError("internal_error", internal="no session secret configured (AUTHGATE_SESSION_SECRET_ARN)")
