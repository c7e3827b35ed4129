"""oauth.clients.metadata_document.client_id_url: a Client Identifier URL (draft-ietf-oauth-client-id-metadata-document-02 3)."""

from __future__ import annotations

import pytest

from authgate.clients.errors import MetadataRefused
from authgate.oauth.clients.metadata_document import client_id_url


@pytest.mark.parametrize("url, why", [
    ("http://client.example/agent.json", "it must start with https://"),
    ("https://user:pw@client.example/agent.json", "it must not carry a user name or password"),
    ("https://client.example/agent.json#x", "it must not have a fragment"),
    ("https://client.example", "it must have a path"),
    ("https://client.example?x=1", "it must have a path"),
    ("https://client.example/a/../b", "its path must not have . or .. segments"),
    ("https://client.example/a/%2e/b", "its path must not have . or .. segments"),
    ("https://client.example:99999/a", "its port is malformed"),
    ("https://client_example/a", "its host is not a DNS name or an IP address"),
    ("https://client.example/a b", "it holds spaces, control, non-ASCII or backslash characters"),
    ("https://client.example/" + "a" * 200, "longer than 200 characters"),
])
def test_client_identifier_url_rules(url: str, why: str) -> None:
    with pytest.raises(MetadataRefused) as caught:
        client_id_url.parse(url)
    assert caught.value.code == "client_metadata_url_invalid"
    assert caught.value.detail == f"The client_id is not a valid Client Identifier URL: {why}."


def test_client_identifier_url_keeps_port_query_and_ipv6() -> None:
    parsed = client_id_url.parse("https://[2001:db8::1]:8443/c?v=1")
    assert (parsed.host, parsed.port, parsed.target, parsed.authority) == (
        "2001:db8::1", 8443, "/c?v=1", "[2001:db8::1]:8443")


def test_only_an_https_prefix_makes_a_client_id_a_document_and_it_is_never_normalised() -> None:
    assert client_id_url.is_client_id_url("https://tools.example/agent.json")
    assert client_id_url.is_client_id_url("HTTPS://tools.example/agent.json")  # a document id, then refused:
    with pytest.raises(MetadataRefused) as upper:
        client_id_url.parse("HTTPS://tools.example/agent.json")
    assert upper.value.detail.endswith("it must start with https://.")
    assert not client_id_url.is_client_id_url("demo-web") and not client_id_url.is_client_id_url("http://x.example/a")
    parsed = client_id_url.parse("https://Tools.Example./agent.json")
    assert (parsed.url, parsed.host, parsed.port, parsed.authority) == (
        "https://Tools.Example./agent.json", "tools.example", 443, "tools.example")
