"""The stack's sealing key: the secret every sealed value of the stack is keyed with, whatever it seals.

It is the Secrets Manager secret SessionSecret (a name from before it sealed anything but sign-in
forms; it has nothing to do with sign-in sessions, whose secrets live in SessionsTable): the MAC key
of every sealed form and page state, the key DPoP nonces are derived from (tokens.dpop_nonce) and
the one the TOTP secrets' sealing key is derived from (users.sealed_secrets). Read once per
container, on first use.
"""

from __future__ import annotations

import base64
import secrets

from authgate.caches import cached
from authgate.settings import get_settings
from authgate.stores.exceptions import SecretUnusable
from authgate.stores.faults import aws_faults
from authgate.users.sealed_secrets import factor_key

MIN_LENGTH = 32


@cached
def sealing_key() -> bytes:
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


def factor_sealing_key() -> bytes:
    """The key one-time-code secrets are sealed under: derived from the sealing key (users.sealed_secrets)."""
    return factor_key(sealing_key())
