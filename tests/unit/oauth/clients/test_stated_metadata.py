"""oauth.clients.stated_metadata: the metadata a self-registered client states (RFC 7591 2; draft-ietf-oauth-client-id-metadata-document-02 4.1)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.oauth.clients.stated_metadata import MetadataProblem, StatedMetadata, check

DOC: dict[str, Any] = {"redirect_uris": ["http://127.0.0.1:9/cb"]}
EC = {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}


def problem(**members: Any) -> MetadataProblem:
    with pytest.raises(MetadataProblem) as caught:
        check({**DOC, **members})
    return caught.value


def test_the_defaults_make_a_public_code_flow_client() -> None:
    assert check(DOC) == StatedMetadata(redirect_uris=("http://127.0.0.1:9/cb",), auth_method="none",
                                        grant_types=("authorization_code",), scopes=(), name="", jwks=None,
                                        jwks_uri="", dpop_bound_access_tokens=False)


def test_private_key_jwt_keeps_its_keys_or_their_uri_never_both() -> None:
    assert check({**DOC, "token_endpoint_auth_method": "private_key_jwt", "jwks": {"keys": [EC]}}).jwks == {"keys": [EC]}
    by_uri = check({**DOC, "token_endpoint_auth_method": "private_key_jwt", "jwks_uri": "https://a.example/jwks"})
    assert (by_uri.jwks, by_uri.jwks_uri) == (None, "https://a.example/jwks")
    assert str(problem(token_endpoint_auth_method="private_key_jwt", jwks={"keys": []},
                       jwks_uri="https://a.example/jwks")) == "jwks and jwks_uri must not both be present (RFC 7591 2)."
    assert str(problem(token_endpoint_auth_method="private_key_jwt")) == (
        "private_key_jwt needs the client's public keys in jwks or jwks_uri.")
    assert check({**DOC, "jwks": {"keys": [EC]}}).jwks is None  # a public client's keys are not kept


def test_no_shared_secret_of_any_kind() -> None:
    assert str(problem(client_secret="s")) == (
        "client_secret must not be present: a self-registered client has no shared secret.")
    assert "needs a shared secret" in str(problem(token_endpoint_auth_method="client_secret_basic"))
    assert str(problem(token_endpoint_auth_method="tls_client_auth")) == (
        "token_endpoint_auth_method must be none or private_key_jwt.")


def test_a_redirect_uri_problem_is_marked_as_one() -> None:
    for uris in (None, [], ["javascript:alert(1)"], ["http://app.example/cb"], ["https://a.example/cb#x"],
                 ["https://a.example/" + str(i) for i in range(11)]):
        assert problem(redirect_uris=uris).redirect, uris
    assert not problem(grant_types=["client_credentials"]).redirect
    assert check({**DOC, "redirect_uris": ["com.example.app:/cb", "https://a.example/cb", "https://a.example/cb"]}
                 ).redirect_uris == ("com.example.app:/cb", "https://a.example/cb")


def test_grants_scope_and_name() -> None:
    stated = check({**DOC, "grant_types": ["authorization_code", "refresh_token"], "scope": "a b a",
                    "client_name": " Agent\u202e \u0007", "dpop_bound_access_tokens": True})
    assert (stated.grant_types, stated.scopes, stated.name, stated.dpop_bound_access_tokens) == (
        ("authorization_code", "refresh_token"), ("a", "b"), "Agent", True)
    assert str(problem(grant_types=["refresh_token"])) == "grant_types must include authorization_code."
    assert str(problem(response_types=["token"])) == 'response_types must be ["code"].'
    assert str(problem(scope="a  b")).startswith("scope: ")
    assert str(problem(dpop_bound_access_tokens="yes")) == "dpop_bound_access_tokens must be true or false."
