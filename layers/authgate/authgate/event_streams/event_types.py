"""The event types this transmitter sends (OpenID CAEP 1.0 3, OpenID RISC 1.0 2) and the framework's own (SSF 1.0 8.1.4.1).

Each is a URI, the one key of a SET's `events` claim (RFC 8417 2.2; SSF 1.0 4.2.1: one event per
SET). `SUPPORTED` is a stream's `events_supported` (SSF 1.0 8.1.1); the verification event is sent
whatever a stream asked for (SSF 1.0 8.1.4: "even if the event is not present in events_supported").
"""

from __future__ import annotations

_CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
_RISC = "https://schemas.openid.net/secevent/risc/event-type/"

# CAEP 1.0 3.1: the sessions of the subject were revoked (sign-out, sessions ended, account disabled).
SESSION_REVOKED = _CAEP + "session-revoked"
# CAEP 1.0 3.3: a credential was created, changed or deleted (password, second factor, passkey).
CREDENTIAL_CHANGE = _CAEP + "credential-change"
# RISC 1.0 2.3, 2.4, 2.2: the account was disabled, enabled again, deleted for good.
ACCOUNT_DISABLED = _RISC + "account-disabled"
ACCOUNT_ENABLED = _RISC + "account-enabled"
ACCOUNT_PURGED = _RISC + "account-purged"
# SSF 1.0 8.1.4.1: the event a receiver asks for to check its stream end to end.
VERIFICATION = "https://schemas.openid.net/secevent/ssf/event-type/verification"

SUPPORTED: tuple[str, ...] = (SESSION_REVOKED, CREDENTIAL_CHANGE, ACCOUNT_DISABLED, ACCOUNT_ENABLED, ACCOUNT_PURGED)
