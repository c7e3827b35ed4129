"""The access-token profile both sides share (RFC 9068): its type, its audience, its claims.

Issuing (tokens.access_token) and validating (tokens.validator) both read it; a resource
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


# RFC 8693 4.1: how many actors one token may name (`act` nested per hop); an exchange past it is refused.
MAX_ACTORS = 4


def actor_chain_ok(act: object) -> bool:
    """Whether `act` is an RFC 8693 4.1 actor: an object with a string `sub`, its own `act` nested, at most
    MAX_ACTORS deep."""
    for _ in range(MAX_ACTORS):
        if not isinstance(act, dict) or not isinstance(act.get("sub"), str):
            return False
        act = act.get("act")
        if act is None:
            return True
    return False


def actor_depth(act: object) -> int:
    """How many actors an `act` claim (already checked by actor_chain_ok) names; 0 for None."""
    depth = 0
    while isinstance(act, dict):
        depth, act = depth + 1, act.get("act")
    return depth


def default_audience(issuer: str) -> str:
    """The resource server identifier tokens are issued for (and the guard requires)."""
    return issuer.rstrip("/") + RESOURCE_PATH

# RFC 9728 3: the well-known suffix of protected resource metadata.
RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource"


def resource_metadata_url(issuer: str) -> str:
    """Where the charges resource's metadata is served (RFC 9728 3.1: the well-known suffix, then the
    resource identifier's path), the `resource_metadata` of its challenges (RFC 9728 5.1)."""
    return issuer.rstrip("/") + RESOURCE_METADATA_PATH + RESOURCE_PATH
