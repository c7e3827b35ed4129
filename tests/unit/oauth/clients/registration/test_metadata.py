"""oauth.clients.registration.metadata: the request's metadata checked into a Client, and the client information."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clients.model import REGISTRATION_SOURCE
from authgate.errors import ApiError
from authgate.oauth.clients.registration.metadata import (
    checked,
    client_information,
    read,
    registered_client,
)
from authgate.stores.registrations import UNASSIGNED, UNUSED_LIFETIME, token_matches
from tests.unit.oauth.clients.registration.conftest import REDIRECT, json_request

DOC: dict[str, Any] = {"client_name": "CLI Agent", "redirect_uris": [REDIRECT], "scope": "charges:read"}
EC = {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", "kid": "k1"}


def refused(doc: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(ApiError) as caught:
        checked(doc)
    return caught.value.code, caught.value.detail


def test_a_public_client_is_checked_as_any_self_registered_client() -> None:
    stated = checked(DOC)
    assert (stated.redirect_uris, stated.auth_method, stated.scopes, stated.name) == (
        (REDIRECT,), "none", ("charges:read",), "CLI Agent")


def test_software_statements_and_jwks_uri_are_refused() -> None:
    assert refused({**DOC, "software_statement": "e30.e30."}) == (
        "invalid_client_metadata", "Software statements are not supported (RFC 7591 2.3); send the metadata itself.")
    assert refused({**DOC, "token_endpoint_auth_method": "private_key_jwt",
                    "jwks_uri": "https://agent.example/jwks.json"}) == (
        "invalid_client_metadata", ("Register the public keys themselves in jwks; jwks_uri is accepted only in a "
                                    "Client ID Metadata Document."))
    assert refused({**DOC, "redirect_uris": ["javascript:alert(1)"]})[0] == "invalid_redirect_uri"


def test_the_registered_client_keeps_only_a_hash_of_its_token_and_lives_a_day_unused() -> None:
    stated = checked({**DOC, "token_endpoint_auth_method": "private_key_jwt", "jwks": {"keys": [EC]}})
    client = registered_client(stated, "dcr_1", 1000, "the-token")
    assert (client.client_id, client.tenant_id, client.client_type, client.source, client.expires_at,
            client.registration_pool, client.secret_hash) == (
        "dcr_1", "", "confidential", REGISTRATION_SOURCE, 1000 + UNUSED_LIFETIME, UNASSIGNED, None)
    assert "the-token" not in repr(client) and token_matches(client.registration_token_hash, "the-token")
    assert client.jwks == (EC,)
    with pytest.raises(ApiError) as bad_keys:
        registered_client(checked({**DOC, "token_endpoint_auth_method": "private_key_jwt",
                                   "jwks": {"keys": [{**EC, "d": "secret"}]}}), "dcr_2", 1000, "t")
    assert bad_keys.value.code == "invalid_client_metadata" and bad_keys.value.detail.startswith("jwks: key 0 holds")


def test_the_client_information_response_shows_the_token_only_when_given() -> None:
    client = registered_client(checked(DOC), "dcr_1", 1000, "the-token")
    assert client_information(client, "https://as.example", "the-token") == {
        "client_id": "dcr_1", "client_id_issued_at": 1000,
        "registration_client_uri": "https://as.example/oauth/register/dcr_1", "registration_access_token": "the-token",
        "client_name": "CLI Agent", "redirect_uris": [REDIRECT], "grant_types": ["authorization_code"],
        "response_types": ["code"], "token_endpoint_auth_method": "none", "scope": "charges:read"}
    assert "registration_access_token" not in client_information(client, "https://as.example")


def test_a_body_that_is_not_a_json_object_is_invalid_client_metadata_and_another_media_type_415() -> None:
    assert read(json_request("POST", DOC)) == DOC
    with pytest.raises(ApiError) as not_object:
        read(json_request("POST", [1, 2]))
    assert not_object.value.code == "invalid_client_metadata"
    with pytest.raises(ApiError) as media:
        read(json_request("POST", raw=b"client_name=x", content_type="application/x-www-form-urlencoded"))
    assert media.value.status == 415
