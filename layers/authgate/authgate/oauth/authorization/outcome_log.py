"""The authorization endpoint's outcome log: one line per outcome (approved, denied, login_invalid, login_required,
factor_invalid, ...), ids only: never the username, the password, a code or the state."""

from __future__ import annotations

from authgate.logs import get_logger
from authgate.oauth.authorization.request import AuthorizationRequest


def log(outcome: str, auth: AuthorizationRequest) -> None:
    """The line of `outcome` for `auth`: its client, tenant and scopes."""
    get_logger().info("authorize", extra={"outcome": outcome, "client_id": auth.client_id,
                                          "tenant": auth.tenant_id, "scope": " ".join(auth.scopes)})
