"""oauth.discovery.protected_resource (RFC 9728 2): the charges API's metadata, pointing at its authorization server."""

from __future__ import annotations

from authgate.oauth.discovery.protected_resource import resource_metadata
from authgate.tokens.jwt_profile import DPOP_ALGORITHMS, default_audience

ISSUER = "https://auth.example.com/prod"


def test_the_resource_is_the_token_audience_and_its_server_the_issuer() -> None:
    doc = resource_metadata(ISSUER)
    assert (doc["resource"], doc["authorization_servers"]) == (default_audience(ISSUER), [ISSUER])
    assert (doc["bearer_methods_supported"], doc["dpop_bound_access_tokens_required"]) == (["header"], False)
    assert doc["dpop_signing_alg_values_supported"] == list(DPOP_ALGORITHMS)
    assert doc["scopes_supported"] == ["charges:read", "charges:write", "charges:refund"]
