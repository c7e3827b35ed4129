"""Why a client's metadata document was refused: one exception, rendered per endpoint.

The authorization endpoint shows it on a page and never redirects (the redirect URI comes from
the document, so it is not trusted: RFC 6749 4.1.2.1); the token and PAR endpoints answer 401
invalid_client (RFC 6749 5.2). The code names the precise reason (errors/catalogue.json).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.errors.challenges import basic

if TYPE_CHECKING:
    from authgate.errors.codes import Code
    from authgate.errors.model import OAuthCode


class MetadataRefused(Exception):
    """A Client ID Metadata Document could not be used; `detail` is safe to show, `internal` is for logs."""

    def __init__(self, code: Code, detail: str, internal: str = "", retry_after: int = 0) -> None:
        super().__init__(f"{code}: {detail}")
        self.code: Code = code
        self.detail = detail
        self.internal = internal
        self.retry_after = retry_after

    def _oauth_error(self, default: OAuthCode) -> OAuthCode:
        return "temporarily_unavailable" if self.retry_after else default

    def _headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)} if self.retry_after else {}

    def at_authorization(self) -> ApiError:
        """The error page of the authorization endpoint (draft 5.1: abort the request), naming invalid_client."""
        return ApiError(self.code, self.detail, internal=self.internal, headers=self._headers(),
                        oauth_error=self._oauth_error("invalid_client"))

    def at_token(self) -> ApiError:
        """401 invalid_client with its Basic challenge at the token and PAR endpoints (RFC 6749 5.2)."""
        if self.retry_after:
            return ApiError(self.code, self.detail, internal=self.internal, headers=self._headers(),
                            oauth_error="temporarily_unavailable")
        return ApiError(self.code, self.detail, internal=self.internal, status=401, oauth_error="invalid_client",
                        headers={"WWW-Authenticate": basic()})
