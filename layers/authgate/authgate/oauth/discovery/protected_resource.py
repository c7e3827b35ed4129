"""GET /.well-known/oauth-protected-resource[/charges] (RFC 9728 2, 3): the charges API's metadata.

The resource identifier is `<issuer>/charges` (the audience of every access token). RFC 9728
3.1 puts its metadata at the host's `/.well-known/oauth-protected-resource/charges` when the
issuer has no path (a custom domain), which is what `resource_metadata` in every challenge of
the API names (RFC 9728 5.1); behind an execute-api URL the issuer's path is the stage, so the
document is served under the stage, with and without the `/charges` suffix. Lean on purpose,
like the AS metadata: the jwks function's cold start imports nothing cryptographic for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.authorization_details.charge import TYPE as CHARGE_TYPE
from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.issuer import base_url
from authgate.oauth.scopes import KNOWN_SCOPES
from authgate.tokens.jwt_profile import DPOP_ALGORITHMS, default_audience

if TYPE_CHECKING:
    from authgate.http.request import Request

MAX_AGE = 3600


def resource_metadata(issuer: str) -> dict[str, Any]:
    """The RFC 9728 2 document of the charges API."""
    return {
        "resource": default_audience(issuer),
        "authorization_servers": [issuer],
        "scopes_supported": list(KNOWN_SCOPES),
        # RFC 6750 2.1 only: tokens in a query or form body are refused (tokens.bearer).
        "bearer_methods_supported": ["header"],
        "resource_name": "authgate charges API",
        "resource_documentation": f"{issuer}/openapi.json",
        # RFC 9449 5.1 and RFC 9728 2: DPoP-bound tokens are accepted, bearer tokens too.
        "dpop_signing_alg_values_supported": list(DPOP_ALGORITHMS),
        "dpop_bound_access_tokens_required": False,
        # RFC 9728 2, RFC 9396 10: the authorization_details type this API enforces.
        "authorization_details_types_supported": [CHARGE_TYPE],
    }


def get_resource_metadata(request: Request) -> Response:
    issuer = base_url(request)
    if not issuer:
        raise ApiError("internal_error", "The issuer is not configured.", internal="no issuer and no API context")
    return Response.json(200, resource_metadata(issuer), headers={"Cache-Control": f"public, max-age={MAX_AGE}"})
