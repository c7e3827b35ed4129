"""The device authorization grant's token request (RFC 8628 3.4) and its answers while it waits (3.5).

A poll before the person decided is one conditional write (stores.device_codes): it answers
authorization_pending, or slow_down when the device did not wait its interval (which then grows by
5 seconds, 3.5). A denied request is access_denied, a code past its lifetime expired_token; an
approved one is redeemed once (a conditional write) and issues as the code exchange does: the
access token, a refresh token when the client may refresh, and an ID token when `openid` was
approved, stating the sign-in of the session that approved it (acr, auth_time, sid).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.oauth.token.grants.approval import approved_tokens
from authgate.oauth.token.grants.base import Grant, TokenRequest, TokenResult
from authgate.polling import SLOW_DOWN_STEP
from authgate.single_use.device_codes import GRANT_TYPE, DeviceAuthorization, parts
from authgate.stores.device_codes import DeviceCodeStore

if TYPE_CHECKING:
    from authgate.http.request import Request

UNKNOWN = "The device_code is unknown, was issued to another client, or has been used already."


class DeviceCodeGrant(Grant):
    GRANT_TYPE = GRANT_TYPE

    def __init__(self) -> None:
        self._approved: DeviceAuthorization | None = None

    def before_authentication(self, request: Request, form: Mapping[str, str], client_id: str, method: str) -> None:
        """A public client's poll (client authentication "none", RFC 6749 2.1; no DPoP proof to check) in its one
        conditional write, before the client is read: pending, too early, denied and expired are answered now,
        since the device code (256 random bits, issued to that public client) is the only credential such a
        client has. An approved one is kept for `exchange`, after every step of the token endpoint; anything
        else (unknown, another client's, a confidential client's code) goes the usual way."""
        found = parts(form.get("device_code") or "")
        if method != "none" or found is None or request.headers.get_all("dpop"):
            return
        outcome, record = DeviceCodeStore().poll(*found, client_id, public_only=True)
        if outcome in ("pending", "slow_down", "expired", "denied"):
            _answer(outcome, record)
        if outcome == "approved":
            self._approved = record

    def exchange(self, req: TokenRequest) -> TokenResult:
        found = parts(req.param("device_code"))
        if found is None:
            raise ApiError("invalid_grant", UNKNOWN, internal="malformed device_code")
        store = DeviceCodeStore()
        outcome: str
        record: DeviceAuthorization | None
        if self._approved is not None and self._approved.client_id == req.client.client_id:
            outcome, record = "approved", self._approved
        else:
            outcome, record = store.poll(*found, req.client.client_id)
        _answer(outcome, record)
        if outcome != "approved" or record is None or not store.redeem(record):
            raise ApiError("invalid_grant", UNKNOWN, internal=f"device code {outcome}")

        return approved_tokens(req, tenant_id=record.tenant_id, subject=record.subject, scope=record.scope,
                               resource=record.resource, grant_id=record.grant_id,
                               authentication=record.authentication)


def _answer(outcome: str, record: DeviceAuthorization | None) -> None:
    """RFC 8628 3.5: the error of a poll that issues nothing (nothing for approved, unknown or redeemed)."""
    if outcome == "pending":
        raise ApiError("authorization_pending", "The user has not yet approved or denied this request; "
                                                "poll again after the interval (RFC 8628 3.5).")
    if outcome == "slow_down":
        assert record is not None
        raise ApiError("slow_down", f"Polling too fast: wait at least {record.interval + SLOW_DOWN_STEP} seconds between "
                                    "requests from now on (RFC 8628 3.5).")
    if outcome == "expired":
        raise ApiError("expired_token", "The device_code has expired: start a new device authorization "
                                        "request (RFC 8628 3.5).")
    if outcome == "denied":
        raise ApiError("device_access_denied", "The user denied the request (RFC 8628 3.5).",
                       oauth_error="access_denied")
