"""What dynamic registration answers when it refuses (RFC 7591 3.2.2, RFC 7592 3), each an ApiError of the catalogue."""

from __future__ import annotations

from authgate.errors import ApiError
from authgate.errors.challenges import bearer
from authgate.oauth.clients.stated_metadata import MetadataProblem


def not_enabled() -> ApiError:
    """The deployment has not switched registration on (RFC 7591 leaves who may register to the server)."""
    return ApiError("registration_not_enabled", "Dynamic client registration is not enabled on this "
                    "deployment; ask an administrator for a client, or identify the client with a Client ID "
                    "Metadata Document (an https client_id).", oauth_error="access_denied")


def invalid_metadata(detail: str) -> ApiError:
    """invalid_client_metadata (RFC 7591 3.2.2): `detail` names the member."""
    return ApiError("invalid_client_metadata", detail, oauth_error="invalid_client_metadata")


def metadata_problem(exc: MetadataProblem) -> ApiError:
    """A broken rule of the stated metadata: invalid_redirect_uri for a redirect URI, else invalid_client_metadata."""
    if exc.redirect:
        return ApiError("invalid_redirect_uri", str(exc), oauth_error="invalid_redirect_uri")
    return invalid_metadata(str(exc))


def invalid_registration_token(detail: str, *, presented: bool = True) -> ApiError:
    """401 invalid_token with its Bearer challenge (RFC 7592 3, RFC 6750 3.1); no error code when none was sent."""
    challenge = bearer("oauth", "invalid_token") if presented else bearer("oauth")
    return ApiError("invalid_registration_token", detail, oauth_error="invalid_token",
                    headers={"WWW-Authenticate": challenge})
