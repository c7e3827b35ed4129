"""Setting up a one-time code (TOTP, RFC 6238; docs/strong-authentication.md): a pending secret, confirmed by a first
right code, then the ten recovery codes shown once.

The one enrolment of every flow: the forced one of a tenant that requires `mfa` (interaction.second_factor, kind
`enrol`) and the account page's set-up (account.factor_enrolment). The secret is kept sealed as the user's pending
one until a first right code confirms it (stores.user_factors); a second start replaces it.
"""

from __future__ import annotations

import html
from urllib.parse import urlsplit

from authgate.stores.user_factors import UserFactorStore
from authgate.users import totp


def started(tenant_id: str, username: str) -> str:
    """A new pending secret for the person (replacing any pending one), in plain text once: for its QR code and key."""
    return UserFactorStore().start_totp(tenant_id, username)


def confirmed(tenant_id: str, username: str, code: str) -> tuple[str, ...] | None:
    """The ten recovery codes once `code` is one of the pending secret's codes (the secret is then the person's),
    None for a wrong code; users.errors.NoPendingEnrolment when none was started, or it expired or was replaced."""
    return UserFactorStore().confirm_totp(tenant_id, username, code)


def shown(secret: str, username: str, issuer: str) -> str:
    """A pending secret as the person's app takes it (HTML): its QR code (an otpauth URI, RFC 6238, drawn as SVG on
    the server) and its key in groups of four, labelled with the issuer's host."""
    uri = totp.provisioning_uri(secret, account=username, issuer=urlsplit(issuer).hostname or "authgate")
    grouped = " ".join(secret[i:i + 4] for i in range(0, len(secret), 4))
    return (f'<figure class="qr">{totp.qr_svg(uri)}</figure>\n'
            f'<p>Key: <code class="totp-secret">{html.escape(grouped)}</code></p>')
