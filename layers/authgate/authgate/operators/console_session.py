"""An operator's session of the console (docs/console.md): held server-side, named by a cookie's secret.

The browser holds a random secret in the console's cookie (console.session); SessionsTable holds only its SHA-256,
under the key prefix `console#` (a sign-in session's key is a bare hash: the two never meet, and a console session
has no `user_key`, so it is in no person's list of sign-in sessions). The session is the operator's sign-in at the
stack's own authorization endpoint: who (username and user_id, the user's session generation then), when
(`auth_time`, the ID token's) and until when (`expires_at`: auth_time plus the console's max_age, also the item's
TTL), the sign-in session it came from (`sid`) and the ID token, kept here only as the hint of the sign-out it ends
with (OpenID Connect RP-Initiated Logout 1.0 2).
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from authgate.records import Field

KEY_PREFIX = "console#"


class ConsoleSession(NamedTuple):
    session_hash: str
    tenant_id: str
    username: str
    user_id: str
    generation: int
    auth_time: int
    expires_at: int
    created_at: int
    sid: str = ""
    id_token: str = ""

    def live(self, now: int) -> bool:
        """Before its end (moto never deletes TTL items, and DynamoDB deletes them late: checked here)."""
        return now < self.expires_at


def session_key(secret: str) -> str:
    """The item's key: the prefix and the SHA-256 of the cookie's secret."""
    return KEY_PREFIX + hashlib.sha256(secret.encode("utf-8")).hexdigest()


FIELDS = (
    Field("session_hash", "S"),
    Field("tenant_id", "S"),
    Field("username", "S"),
    Field("user_id", "S"),
    Field("generation", "N", 0),
    Field("auth_time", "N", 0),
    Field("expires_at", "N", 0),
    Field("created_at", "N", 0),
    Field("sid", "S", "", omit_empty=True),
    Field("id_token", "S", "", omit_empty=True, public=False),
)
