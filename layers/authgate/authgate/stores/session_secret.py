"""The stack's session secret (Secrets Manager SessionSecret): the consent form's MAC key, and the
key DPoP nonces are derived from (tokens.dpop_nonce). Read once per container, on first use.
"""

from __future__ import annotations

import base64
import secrets

from authgate.caches import cached
from authgate.settings import get_settings
from authgate.stores.exceptions import SecretUnusable
from authgate.stores.faults import aws_faults

MIN_LENGTH = 32


@cached
def session_secret() -> bytes:
    """settings.session_secret locally, else the Secrets Manager secret (cached warm); SecretUnusable
    when the deployment has none, or one too short to be a key."""
    settings = get_settings()
    if settings.session_secret:
        return settings.session_secret.encode("utf-8")
    if settings.session_secret_arn:
        from authgate.aws import secretsmanager

        # Same fault mapping as storage: throttling/timeouts are temporarily_unavailable.
        with aws_faults("secretsmanager.get_secret_value"):
            secret = secretsmanager().get_secret_value(SecretId=settings.session_secret_arn)
        value = secret.get("SecretString") or base64.b64encode(secret.get("SecretBinary", b"")).decode()
        if len(value) < MIN_LENGTH:
            raise SecretUnusable(f"session secret is shorter than {MIN_LENGTH} characters")
        return value.encode("utf-8")
    if settings.stage == "local":
        # A local process with no configured secret: valid for this process only.
        return secrets.token_bytes(32)
    raise SecretUnusable("no session secret configured (AUTHGATE_SESSION_SECRET_ARN)")
