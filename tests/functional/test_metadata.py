"""GET /.well-known/oauth-authorization-server (RFC 8414) and /.well-known/openid-configuration (OpenID
Connect Discovery 4) through the jwks function: one document at both."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from authgate_cli.local.events import HttpRequest, build_event

ISSUER = "http://127.0.0.1:3000"


@pytest.mark.parametrize("path", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"])
def test_metadata_document(aws: None, invoke, path: str) -> None:  # type: ignore[no-untyped-def]
    request = HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")])
    result = invoke("jwks", build_event(request, resource=path, path_params=None))
    headers = {k: ", ".join(v) for k, v in result["multiValueHeaders"].items()}
    assert headers.pop("x-request-id")
    assert (result["statusCode"], headers) == (200, {"Content-Type": "application/json",
                                                     "Cache-Control": "public, max-age=3600", "Vary": "Origin"})
    methods = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
    algorithms = ["ES256", "PS256", "EdDSA", "Ed25519"]
    assert json.loads(result["body"]) == {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/oauth/authorize",
        "token_endpoint": f"{ISSUER}/oauth/token",
        "jwks_uri": f"{ISSUER}/.well-known/jwks.json",
        "revocation_endpoint": f"{ISSUER}/oauth/revoke",
        "introspection_endpoint": f"{ISSUER}/oauth/introspect",
        "userinfo_endpoint": f"{ISSUER}/oauth/userinfo",
        "end_session_endpoint": f"{ISSUER}/oauth/logout",
        "scopes_supported": ["charges:read", "charges:write", "charges:refund", "openid", "profile", "email"],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials",
        "urn:ietf:params:oauth:grant-type:token-exchange",
        "urn:ietf:params:oauth:grant-type:jwt-bearer", "urn:ietf:params:oauth:grant-type:device_code",
        "urn:openid:params:grant-type:ciba"],
        "authorization_grant_profiles_supported": ["urn:ietf:params:oauth:grant-profile:id-jag"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": methods,
        "token_endpoint_auth_signing_alg_values_supported": algorithms,
        "pushed_authorization_request_endpoint": f"{ISSUER}/oauth/par",
        "device_authorization_endpoint": f"{ISSUER}/oauth/device_authorization",
        "require_pushed_authorization_requests": False,
        "backchannel_authentication_endpoint": f"{ISSUER}/oauth/backchannel",
        "backchannel_token_delivery_modes_supported": ["poll"],
        "backchannel_user_code_parameter_supported": False,
        "request_parameter_supported": False,
        "request_uri_parameter_supported": False,
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "claims_supported": ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "sid",
                             "at_hash", "name", "preferred_username", "updated_at", "email", "email_verified"],
        "claim_types_supported": ["normal"],
        "claims_parameter_supported": True,
        "acr_values_supported": ["password", "mfa"],
        "prompt_values_supported": ["none", "login", "consent"],
        "frontchannel_logout_supported": False,
        "backchannel_logout_supported": True,
        "backchannel_logout_session_supported": True,
        "revocation_endpoint_auth_methods_supported": methods,
        "introspection_endpoint_auth_methods_supported": methods,
        "revocation_endpoint_auth_signing_alg_values_supported": algorithms,
        "introspection_endpoint_auth_signing_alg_values_supported": algorithms,
        "authorization_response_iss_parameter_supported": True,
        "service_documentation": f"{ISSUER}/openapi.json",
        "dpop_signing_alg_values_supported": ["ES256", "EdDSA", "RS256", "PS256"],
        # Off unless the deployment switches it on (template parameter ClientIdMetadataDocuments).
        "client_id_metadata_document_supported": False,
        # RFC 9396 10: the charges API's type; a registered resource's types are its own.
        "authorization_details_types_supported": ["charge"],
    }


def test_metadata_path_imports_no_jwt_or_cryptography() -> None:
    code = ("import sys; import authgate.oauth.discovery.authorization_server; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jwt', 'cryptography')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_metadata_advertises_client_id_metadata_documents_when_switched_on(  # type: ignore[no-untyped-def]
        aws: None, invoke, monkeypatch) -> None:
    """draft-ietf-oauth-client-id-metadata-document-02 6: the deployment says whether it fetches."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_CLIENT_METADATA_DOCUMENTS", "true")
    caches.reset()
    request = HttpRequest("GET", "/.well-known/oauth-authorization-server", "", [("Host", "127.0.0.1:3000")])
    result = invoke("jwks", build_event(request, resource="/.well-known/oauth-authorization-server", path_params=None))
    assert result["statusCode"] == 200
    assert json.loads(result["body"])["client_id_metadata_document_supported"] is True
    assert "registration_endpoint" not in json.loads(result["body"])
    monkeypatch.setenv("AUTHGATE_DYNAMIC_REGISTRATION", "true")
    caches.reset()
    result = invoke("jwks", build_event(request, resource="/.well-known/oauth-authorization-server", path_params=None))
    assert json.loads(result["body"])["registration_endpoint"] == f"{ISSUER}/oauth/register"


def test_metadata_prompt_list_matches_the_authorization_endpoint() -> None:
    """Spelled out in discovery so the jwks function loads no authorization code (the acr values are one list,
    authgate.assurance's, that both read)."""
    from authgate.oauth.authorization import openid_request
    from authgate.oauth.discovery import authorization_server

    assert authorization_server.PROMPT_VALUES == openid_request.PROMPT_VALUES
