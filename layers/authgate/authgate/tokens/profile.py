"""The access-token profile both sides share (RFC 9068): its type, its audience, its claims.

Issuing (tokens.access_token) and validating (tokens.validation) both read it; a resource
function imports only this, never the signing side.
"""

from __future__ import annotations

# RFC 9068 section 2.1: the JOSE header's typ.
TOKEN_TYPE = "at+jwt"
# The charges API is the resource tokens are for (RFC 9068 section 2.2 `aud`).
RESOURCE_PATH = "/charges"
# The algorithms a DPoP proof may use (RFC 9449 4.3 step 5; 5.1 dpop_signing_alg_values_supported):
# asymmetric only, never `none` or a MAC. Here, beside the profile, so the metadata documents
# can name them without importing the proof checker.
DPOP_ALGORITHMS = ("ES256", "EdDSA", "RS256", "PS256")
# FAPI 2.0 5.4: the only algorithms a fapi2 client may sign with (its DPoP proofs included).
FAPI2_ALGORITHMS = ("PS256", "ES256", "EdDSA")
# RFC 9068 section 2.2, plus the tenant every route is scoped to.
REQUIRED_CLAIMS = ("iss", "sub", "aud", "exp", "iat", "jti", "client_id", "scope", "tenant")


def default_audience(issuer: str) -> str:
    """The resource server identifier tokens are issued for (and the guard requires)."""
    return issuer.rstrip("/") + RESOURCE_PATH

# RFC 9728 3: the well-known suffix of protected resource metadata.
RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource"


def resource_metadata_url(issuer: str) -> str:
    """Where the charges resource's metadata is served (RFC 9728 3.1: the well-known suffix, then the
    resource identifier's path), the `resource_metadata` of its challenges (RFC 9728 5.1)."""
    return issuer.rstrip("/") + RESOURCE_METADATA_PATH + RESOURCE_PATH
