"""GET /.well-known/ssf-configuration: the Transmitter Configuration Metadata (SSF 1.0 7.1, 7.2).

Served under the issuer as the RFC 8414 document is (SSF 1.0 7.2 inserts the well-known string
between the host and the issuer's path; behind an execute-api URL the issuer's path is the
stage, so the document is served under the stage: docs/deploy.md recommends a custom domain).
`issuer` is this server's issuer, the `iss` of every SET (7.2.4). The endpoints are the stream
management API's (8.1) and answer a receiver authenticated by an OAuth access token (7.1.1:
`urn:ietf:rfc:6749`) for the resource `<issuer>/ssf` with scope `ssf:manage`, obtained with the
client credentials grant (RFC 6749 4.4). Lean: the jwks function's cold start loads nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.issuer import base_url

if TYPE_CHECKING:
    from authgate.http.request import Request

# SSF 1.0 7.1: the final specification's version.
SPEC_VERSION = "1_0"
# The management API's resource identifier under the issuer (the `aud` of its access tokens) and its scope.
RESOURCE_PATH = "/ssf"
SCOPE = "ssf:manage"
STREAMS_PATH = "/ssf/streams"
STATUS_PATH = "/ssf/status"
ADD_SUBJECT_PATH = "/ssf/subjects/add"
REMOVE_SUBJECT_PATH = "/ssf/subjects/remove"
VERIFY_PATH = "/ssf/verify"
POLL_PATH = "/ssf/poll"
MAX_AGE = 3600


def resource(issuer: str) -> str:
    """The audience of the management API's tokens: `<issuer>/ssf` (RFC 8707 2, docs/shared-signals.md)."""
    return issuer.rstrip("/") + RESOURCE_PATH


def poll_endpoint(issuer: str) -> str:
    """Where a poll stream's receiver polls (SSF 1.0 6.1.2: the transmitter supplies it)."""
    return issuer.rstrip("/") + POLL_PATH


def transmitter_metadata(issuer: str) -> dict[str, Any]:
    """The Transmitter Configuration Metadata (SSF 1.0 7.1)."""
    base = issuer.rstrip("/")
    return {
        "spec_version": SPEC_VERSION,
        "issuer": issuer,
        "jwks_uri": f"{base}/.well-known/jwks.json",
        # SSF 1.0 6.1: push (RFC 8935) and poll (RFC 8936).
        "delivery_methods_supported": ["urn:ietf:rfc:8935", "urn:ietf:rfc:8936"],
        "configuration_endpoint": base + STREAMS_PATH,
        "status_endpoint": base + STATUS_PATH,
        "add_subject_endpoint": base + ADD_SUBJECT_PATH,
        "remove_subject_endpoint": base + REMOVE_SUBJECT_PATH,
        "verification_endpoint": base + VERIFY_PATH,
        # SSF 1.0 7.1.1: OAuth 2.0 access tokens (client credentials), for the poll endpoint too.
        "authorization_schemes": [{"spec_urn": "urn:ietf:rfc:6749"}],
        # SSF 1.0 7.1: every user of the receiver's tenant is a subject until the receiver removes them
        # (the CAEP interoperability profile's implicitly added subjects).
        "default_subjects": "ALL",
    }


def get_ssf_configuration(request: Request) -> Response:
    issuer = base_url(request)
    if not issuer:
        raise ApiError("internal_error", "The issuer is not configured.", internal="no issuer and no API context")
    return Response.json(200, transmitter_metadata(issuer), headers={"Cache-Control": f"public, max-age={MAX_AGE}"})
