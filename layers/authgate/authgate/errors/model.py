"""The one internal error type. The HTTP boundary (authgate.http.shapes) renders it in each wire shape.

Modelled on node-oidc-provider's error class: a client-facing description and a separate
internal detail that only reaches logs. `code` is typed as the catalogue's `Code`, so a code
that is not published fails the type check where it is raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from authgate.errors.catalogue import lookup
from authgate.errors.codes import Code

# Where a field error's value came from: the JSON body (a pointer), the query, or a header.
Location = Literal["body", "query", "header"]
# RFC 6749 4.1.2.1 / 5.2, RFC 6750 3.1 and RFC 7009 2.2.1 error codes an OAuth response may carry.
OAuthCode = Literal[
    "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type",
    "invalid_scope", "unsupported_token_type", "access_denied", "unsupported_response_type",
    "server_error", "temporarily_unavailable",
    # RFC 9449 5.0, 8 (DPoP) and RFC 8707 2 (resource indicators).
    "invalid_dpop_proof", "use_dpop_nonce", "invalid_target",
    # RFC 8628 3.5 (the device authorization grant's polls) and OpenID Connect CIBA Core 11 (a backchannel
    # request's polls).
    "authorization_pending", "slow_down", "expired_token",
    # RFC 7591 3.2.2 (dynamic registration) and RFC 6750 3.1 (its registration access token).
    "invalid_client_metadata", "invalid_redirect_uri", "invalid_token",
    # OpenID Connect Core 3.1.2.6 and 5.5.1.1 (the authorization endpoint).
    "login_required", "consent_required", "interaction_required", "account_selection_required",
    "unmet_authentication_requirements", "request_not_supported", "registration_not_supported",
    # RFC 9396 5 (rich authorization requests).
    "invalid_authorization_details",
    # OpenID Connect CIBA Core 13 (the backchannel authentication endpoint).
    "invalid_binding_message",
]


class FieldError(NamedTuple):
    """One field-level problem: a JSON pointer into the request and a message for people."""

    pointer: str  # RFC 6901 pointer, e.g. "/amount"; "" for the whole body
    message: str
    location: Location = "body"
    # For location query/header: the parameter or header name.
    name: str = ""


@dataclass(eq=False)
class ApiError(Exception):
    """A failure the client is told about, in the shape it negotiated.

    `code` names a catalogue entry, which gives the default status and title.
    `detail` is shown to the client; `internal` only reaches logs.
    """

    code: Code
    detail: str = ""
    internal: str = ""
    status: int = 0
    field_errors: tuple[FieldError, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    # OAuth error code when it differs from `code` (e.g. 503 service_unavailable is
    # temporarily_unavailable on OAuth surfaces).
    oauth_error: OAuthCode | None = None

    def __post_init__(self) -> None:
        info = lookup(self.code)
        if not self.status:
            self.status = info.status
        if not self.detail:
            self.detail = info.title
        super().__init__(self.code)

    @property
    def title(self) -> str:
        return lookup(self.code).title

    def __str__(self) -> str:  # what a log line shows
        return f"{self.code} ({self.status}): {self.detail}" + (f" [{self.internal}]" if self.internal else "")


def retry_after(error: ApiError, seconds: int) -> ApiError:
    """Attach Retry-After (seconds, RFC 9110 10.2.3) to an error."""
    error.headers["Retry-After"] = str(max(0, int(seconds)))
    return error
