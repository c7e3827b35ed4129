"""Validation of a client's own metadata, its cache lifetime, and a tenant's host policy."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clients.errors import MetadataRefused
from authgate.oauth.clients.metadata_document import client_id_url, document

URL = "https://tools.example/agent.json"
DOC: dict[str, Any] = {"client_id": URL, "client_name": "Agent", "redirect_uris": ["http://127.0.0.1:8000/cb"]}


def client(**members: Any) -> Any:
    doc = {k: v for k, v in {**DOC, **members}.items() if v is not None}
    return document.to_client(client_id_url.parse(URL), doc, stage="local", now=100, refresh_at=400,
                              fetch_keys=lambda uri: b'{"keys": []}')


def invalid(**members: Any) -> str:
    with pytest.raises(MetadataRefused) as caught:
        client(**members)
    assert caught.value.code == "client_metadata_invalid"
    prefix = f"The client's metadata document at {URL} is invalid: "
    assert caught.value.detail.startswith(prefix)
    return caught.value.detail[len(prefix):]


def test_a_minimal_document_is_a_public_tenantless_client() -> None:
    c = client()
    assert (c.client_id, c.tenant_id, c.client_type, c.token_endpoint_auth_method, c.grant_types, c.name,
            c.source, c.refresh_at, c.secret_hash) == (
        URL, "", "public", "none", ("authorization_code",), "Agent", "metadata_document", 400, None)


@pytest.mark.parametrize("members, why", [
    ({"client_secret": "s"}, "client_secret must not be present: a self-registered client has no shared secret."),
    ({"client_secret_expires_at": 0}, ("client_secret_expires_at must not be present: a self-registered client "
                                      "has no shared secret.")),
    ({"token_endpoint_auth_method": "client_secret_post"}, ("token_endpoint_auth_method client_secret_post needs "
     "a shared secret, which a self-registered client cannot have; use none or private_key_jwt.")),
    ({"token_endpoint_auth_method": "tls_client_auth"}, "token_endpoint_auth_method must be none or private_key_jwt."),
    ({"token_endpoint_auth_method": "private_key_jwt"}, ("private_key_jwt needs the client's public keys in jwks "
                                                        "or jwks_uri.")),
    ({"token_endpoint_auth_method": "private_key_jwt", "jwks": {"keys": []}, "jwks_uri": "https://x.example/j"},
     "jwks and jwks_uri must not both be present (RFC 7591 2)."),
    ({"token_endpoint_auth_method": "private_key_jwt", "jwks_uri": "http://x.example/j"},
     "jwks_uri must be an https URL."),
    ({"token_endpoint_auth_method": "private_key_jwt", "jwks": {"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}},
     ("its keys: key 0 holds the private member 'k': register public keys only and keep the private key with "
     "the client.")),
    ({"redirect_uris": None}, "redirect_uris must be a non-empty array of URIs."),
    ({"redirect_uris": ["http://evil.example/cb"]}, ("redirect URI http://evil.example/cb must be https, http on a "
     "loopback address, or a private-use scheme such as com.example.app (RFC 8252 7).")),
    ({"redirect_uris": ["javascript:alert(1)"]}, ("redirect URI javascript:alert(1) must be https, http on a "
     "loopback address, or a private-use scheme such as com.example.app (RFC 8252 7).")),
    ({"redirect_uris": ["https://a.example/cb#x"]}, ("redirect URI https://a.example/cb#x is not an absolute URI "
     "without a fragment.")),
    ({"grant_types": ["client_credentials"]}, ("grant_types client_credentials is not available to self-registered "
     "clients (authorization_code and refresh_token are).")),
    ({"response_types": ["token"]}, 'response_types must be ["code"].'),
    ({"scope": "a  b"}, "scope: scope must be scope-tokens separated by single spaces (RFC 6749 3.3)."),
    ({"client_name": 7}, "client_name must be a string."),
    ({"dpop_bound_access_tokens": "yes"}, "dpop_bound_access_tokens must be true or false."),
    ({"backchannel_logout_uri": "http://tools.example/bcl"}, "backchannel_logout_uri must be an https URL."),
])
def test_rules(members: dict[str, Any], why: str) -> None:
    assert invalid(**members) == why


def test_private_use_and_https_redirects_and_a_cleaned_name() -> None:
    c = client(redirect_uris=["com.example.agent:/cb", "https://agent.example/cb"],
               client_name="Agent\u202e evil\x07", scope="mcp:read mcp:write", grant_types=["authorization_code",
                                                                                          "refresh_token"])
    assert c.redirect_uris == ("com.example.agent:/cb", "https://agent.example/cb")
    assert c.name == "Agent evil" and c.scopes == ("mcp:read", "mcp:write")
    assert c.grant_types == ("authorization_code", "refresh_token")


def test_the_document_must_be_a_json_object_naming_its_own_url() -> None:
    url = client_id_url.parse(URL)
    with pytest.raises(MetadataRefused) as caught:
        document.parse(url, b"[]")
    assert caught.value.code == "client_metadata_invalid"
    with pytest.raises(MetadataRefused) as caught:
        document.parse(url, b'{"client_id": "https://tools.example:443/agent.json"}')
    assert caught.value.code == "client_metadata_client_id_mismatch"  # compared as strings, never normalised
    assert document.parse(url, b'{"client_id": "https://tools.example/agent.json"}')["client_id"] == URL
    for body in (b"[" * 5000, b"\xff\xfe", b"{"):  # too deep for the parser, not UTF-8, not JSON: never a 500
        with pytest.raises(MetadataRefused) as caught:
            document.parse(url, body)
        assert caught.value.detail == f"The client's metadata document at {URL} is invalid: it is not JSON (RFC 8259)."


def test_a_document_states_where_logout_tokens_go() -> None:
    """OpenID Connect Back-Channel Logout 1.0 2.2, the same members as dynamic registration."""
    c = client(backchannel_logout_uri="https://tools.example/bcl", backchannel_logout_session_required=True)
    assert (c.backchannel_logout_uri, c.backchannel_logout_session_required) == ("https://tools.example/bcl", True)
    assert client().backchannel_logout_uri == ""
