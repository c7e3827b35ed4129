"""Time-based one-time passwords (RFC 6238, HOTP RFC 4226 underneath) with pyotp: secrets, codes, the QR code.

Six digits, 30-second steps, HMAC-SHA1 (what every authenticator app implements: RFC 6238 4,
Google Authenticator's key URI format). A code is accepted for its own step and one either side
(RFC 6238 5.2: one step of network and clock delay); `matching_step` says which step it matched, and
`accepted_step` accepts each step at most once (RFC 6238 5.2: "MUST NOT accept the second attempt of
the same OTP"; the store's write of the step is conditional on it). pyotp is imported on first use (about 9 ms at import, measured with
`python -X importtime`), segno only to draw a QR code (about 24 ms): no function pays for them
at a cold start unless it checks a code or draws one.
"""

from __future__ import annotations

import hmac
import re

STEP_SECONDS = 30
DIGITS = 6
# Steps either side of the current one a code may come from (RFC 6238 5.2).
WINDOW = 1
# RFC 4226 4 R6: at least 128 bits, 160 recommended: 32 base32 characters are 160 bits.
SECRET_CHARACTERS = 32
_CODE = re.compile(rf"[0-9]{{{DIGITS}}}")
# How long a started enrolment waits for its first code.
PENDING_SECONDS = 15 * 60


def new_secret() -> str:
    """A fresh shared secret, base32 (RFC 4648 6) as authenticator apps take it, 160 random bits."""
    import pyotp  # measured: ~9 ms at import; only enrolment and code checks pay it

    return str(pyotp.random_base32(SECRET_CHARACTERS))


def normalized(code: str) -> str | None:
    """The code as digits (spaces a person typed removed), or None when it cannot be a code."""
    digits = code.replace(" ", "")
    return digits if _CODE.fullmatch(digits) else None


def matching_step(secret: str, code: str, now: int) -> int | None:
    """The time step (RFC 6238 4.2, T) whose code `code` is, within the window, or None.

    Every candidate is compared in constant time and all of them are computed, so the answer's
    timing says nothing about which step (if any) matched.
    """
    import pyotp  # measured: ~9 ms at import

    digits = normalized(code)
    totp = pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS)
    current = now // STEP_SECONDS
    found = None
    for step in range(current - WINDOW, current + WINDOW + 1):
        expected = totp.generate_otp(step)
        if hmac.compare_digest(expected, digits or "x" * DIGITS) and digits is not None:
            found = step
    return found


def accepted_step(secret: str | None, code: str, now: int, last_step: int) -> int | None:
    """The time step at which `code` is accepted as the second factor of `secret`'s owner, or None: the code is
    one of the secret's (`matching_step`) and of a step later than the last one accepted, so a code is never
    accepted twice, nor an older one after it (RFC 6238 5.2). No secret (none, or one that would not open)
    accepts nothing."""
    if not secret:
        return None
    step = matching_step(secret, code, now)
    return step if step is not None and step > last_step else None


def enrolment_open(started_at: int, now: int) -> bool:
    """Whether an enrolment started at `started_at` still waits for its first code (PENDING_SECONDS)."""
    return now - started_at <= PENDING_SECONDS


def provisioning_uri(secret: str, *, account: str, issuer: str) -> str:
    """The otpauth:// key URI an authenticator app scans: issuer = the deployment's name, account = the username."""
    import pyotp  # measured: ~9 ms at import

    return str(pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS).provisioning_uri(
        name=account, issuer_name=issuer))


def qr_svg(uri: str) -> str:
    """The key URI as a QR code, an inline SVG element drawn here (no external service sees the secret)."""
    import segno  # measured: ~24 ms at import; only the enrolment page draws a code

    return str(segno.make_qr(uri, error="m").svg_inline(scale=4, border=2, title="One-time code QR code"))
