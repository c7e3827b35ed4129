"""Why a poll of a backchannel request gets no tokens (CIBA Core 1.0 section 11): only the exception classes, so
authgate.failures can map them without loading the request's record at a cold start."""

from __future__ import annotations


class PollRefused(Exception):
    """The token request of the CIBA grant is answered with an error; `reason` names which (CIBA 11)."""

    reason = "invalid"


class RequestUnknown(PollRefused):
    """No such auth_req_id, one of another client, or one already redeemed: invalid_grant (RFC 6749 5.2)."""

    reason = "unknown"


class RequestPending(PollRefused):
    """Not yet approved nor denied: authorization_pending (CIBA 11)."""

    reason = "pending"


class PolledTooFast(PollRefused):
    """Polled before `interval` seconds passed since the last poll: slow_down, the interval grows (CIBA 11)."""

    reason = "slow_down"


class RequestExpired(PollRefused):
    """Past its expires_in without approval: expired_token (CIBA 11)."""

    reason = "expired"


class RequestDenied(PollRefused):
    """The user denied it: access_denied (CIBA 11)."""

    reason = "denied"


class LinkInvalid(Exception):
    """An approval link unknown, used, expired, or of a request no longer pending: a page (approval_link_invalid)."""
