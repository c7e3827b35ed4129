"""The device authorization grant's token request (RFC 8628 3.4) and its answers while it waits (3.5).

A poll before the person decided is one conditional write (stores.device_codes): it answers
authorization_pending, or slow_down when the device did not wait its interval (which then grows by
5 seconds, 3.5). A denied request is access_denied, a code past its lifetime expired_token; an
approved one is redeemed once (a conditional write) and issues as the code exchange does: the
access token, a refresh token when the client may refresh, and an ID token when `openid` was
approved, stating the sign-in of the session that approved it (acr, auth_time, sid).
"""

from __future__ import annotations

from authgate.errors import ApiError
from authgate.oauth.token.grants.approval import approved_tokens
from authgate.oauth.token.grants.base import Grant, TokenRequest, TokenResult
from authgate.single_use.device_codes import GRANT_TYPE, parts
from authgate.stores.device_codes import DeviceCodeStore

UNKNOWN = "The device_code is unknown, was issued to another client, or has been used already."


class DeviceCodeGrant(Grant):
    GRANT_TYPE = GRANT_TYPE

    def exchange(self, req: TokenRequest) -> TokenResult:
        found = parts(req.param("device_code"))
        if found is None:
            raise ApiError("invalid_grant", UNKNOWN, internal="malformed device_code")
        store = DeviceCodeStore()
        outcome, record = store.poll(*found, req.client.client_id)
        if outcome == "pending":
            raise ApiError("authorization_pending", "The user has not yet approved or denied this request; "
                                                    "poll again after the interval (RFC 8628 3.5).")
        if outcome == "slow_down":
            assert record is not None
            raise ApiError("slow_down", f"Polling too fast: wait at least {record.interval + 5} seconds between "
                                        "requests from now on (RFC 8628 3.5).")
        if outcome == "expired":
            raise ApiError("expired_token", "The device_code has expired: start a new device authorization "
                                            "request (RFC 8628 3.5).")
        if outcome == "denied":
            raise ApiError("device_access_denied", "The user denied the request (RFC 8628 3.5).",
                           oauth_error="access_denied")
        if outcome != "approved" or record is None or not store.redeem(record):
            raise ApiError("invalid_grant", UNKNOWN, internal=f"device code {outcome}")

        return approved_tokens(req, tenant_id=record.tenant_id, subject=record.subject, scope=record.scope,
                               resource=record.resource, grant_id=record.grant_id,
                               authentication=record.authentication)
