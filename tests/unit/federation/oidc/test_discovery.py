"""federation.oidc.discovery: the provider's configuration, its issuer exactly the configured one (Discovery 4.3)."""

from __future__ import annotations

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.discovery import Provider, discover, document_url, parse
from tests.document_server import DocumentServer
from tests.upstream_oidc import ScriptedProvider


def refused(op: ScriptedProvider) -> UpstreamRefused:
    with pytest.raises(UpstreamRefused) as caught:
        discover(op.idp())
    return caught.value


def test_the_configuration_is_fetched_once_and_kept(op: ScriptedProvider, trusted: DocumentServer) -> None:
    provider = discover(op.idp())
    assert provider == Provider(
        issuer=op.issuer, authorization_endpoint=f"{op.issuer}/authorize", token_endpoint=f"{op.issuer}/token",
        jwks_uri=f"{op.issuer}/jwks", userinfo_endpoint=f"{op.issuer}/userinfo",
        end_session_endpoint=f"{op.issuer}/logout")
    assert discover(op.idp()) == provider
    assert [path for path, _ in trusted.requests] == ["/idp-a/.well-known/openid-configuration"]


def test_a_trailing_slash_of_the_issuer_is_not_doubled() -> None:
    assert document_url("https://idp.example/tenant/") == "https://idp.example/tenant/.well-known/openid-configuration"


def test_a_document_that_names_another_issuer_is_refused(op: ScriptedProvider) -> None:
    """Discovery 4.3: the issuer must be identical, or the document speaks for another provider."""
    op.metadata["issuer"] = op.issuer + "/"
    op.publish()
    error = refused(op)
    assert (error.reason, error.internal) == (
        "discovery_issuer_mismatch", f"the document's issuer '{op.issuer}/' is not '{op.issuer}'")


@pytest.mark.parametrize(("member", "value", "internal"), [
    ("token_endpoint", None, "token_endpoint is missing"),
    ("jwks_uri", 7, "jwks_uri is not a string"),
    ("authorization_endpoint", "http://idp.example/authorize", ("authorization_endpoint 'http://idp.example/authorize': "
                                                               "not an https URL")),
])
def test_a_document_without_usable_endpoints_is_refused(op: ScriptedProvider, member: str, value: object,
                                                         internal: str) -> None:
    op.metadata[member] = value
    op.publish()
    error = refused(op)
    assert (error.reason, error.internal) == ("discovery_invalid", internal)


def test_no_document_is_unavailable_and_not_kept(op: ScriptedProvider, trusted: DocumentServer) -> None:
    del trusted.routes["/idp-a/.well-known/openid-configuration"]
    error = refused(op)
    assert (error.reason, error.internal) == (
        "discovery_unavailable", f"{op.issuer}/.well-known/openid-configuration: it answered HTTP 404, not 200")
    op.publish()
    assert discover(op.idp()).issuer == op.issuer


def test_client_authentication_follows_what_the_token_endpoint_takes() -> None:
    base = {"issuer": "https://idp.example", "authorization_endpoint": "https://idp.example/a",
            "token_endpoint": "https://idp.example/t", "jwks_uri": "https://idp.example/k"}
    assert parse(base, "https://idp.example").client_auth == "client_secret_basic"
    for methods, expected in ((["client_secret_post"], "client_secret_post"),
                              (["client_secret_post", "client_secret_basic"], "client_secret_basic"),
                              (["private_key_jwt", "client_secret_post"], "client_secret_post")):
        provider = parse({**base, "token_endpoint_auth_methods_supported": methods}, "https://idp.example")
        assert provider.client_auth == expected, methods
    assert parse({**base, "authorization_response_iss_parameter_supported": True}, "https://idp.example").iss_parameter
