"""OAuth flows through `authgate serve`, driven by a third-party client library (Authlib) unchanged.

The authorization-code + PKCE flow: Authlib builds the authorization URL; a requests session
plays the user (GET the page, POST the form, stop at the 302); Authlib exchanges the code,
refreshes and revokes. Token-endpoint cases (client_credentials, refresh reuse, revocation)
live here too.
"""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session

from tests.contract import ContractSession

pytestmark = pytest.mark.e2e

CALLBACK = "http://127.0.0.1:8765/callback"
SPA_CALLBACK = "http://127.0.0.1:8765/spa/callback"


class _Form(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.hidden: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.action = a.get("action") or ""
        elif tag == "input" and a.get("type") == "hidden":
            self.hidden[str(a["name"])] = a.get("value") or ""


def log_in_and_approve(authorization_url: str, username: str = "alice", password: str = "alice-password",
                       decision: str = "approve") -> str:
    """What a person does in the browser; returns the Location the server redirects to."""
    user = ContractSession()
    page = user.get(authorization_url, timeout=10)
    assert page.status_code == 200, page.text[:500]
    form = _Form()
    form.feed(page.text)
    answer = user.post(urljoin(page.url, form.action), timeout=10, allow_redirects=False,
                       data={**form.hidden, "username": username, "password": password, "decision": decision})
    assert answer.status_code == 303, answer.text[:500]
    return answer.headers["Location"]


def test_authorization_code_with_pkce_refresh_and_revoke_by_authlib(base_url: str) -> None:
    client = OAuth2Session("demo-web", "demo-web-secret", scope="charges:read charges:write",
                           redirect_uri=CALLBACK, code_challenge_method="S256")
    verifier = "v" * 20 + "-authlib-e2e-code-verifier-0123456789"
    url, state = client.create_authorization_url(f"{base_url}/oauth/authorize", code_verifier=verifier)

    location = log_in_and_approve(url)
    query = parse_qs(urlsplit(location).query)
    assert location.startswith(CALLBACK + "?")
    assert query["state"] == [state] and query["iss"] == [base_url]  # RFC 9207

    token = client.fetch_token(f"{base_url}/oauth/token", authorization_response=location, code_verifier=verifier)
    assert token["token_type"].lower() == "bearer"
    assert token["access_token"] and token["refresh_token"]
    assert set(token["scope"].split()) == {"charges:read", "charges:write"}

    refreshed = client.refresh_token(f"{base_url}/oauth/token", refresh_token=token["refresh_token"])
    assert refreshed["access_token"] != token["access_token"]
    assert refreshed["refresh_token"] != token["refresh_token"]  # rotated on every use

    revoked = client.revoke_token(f"{base_url}/oauth/revoke", token=refreshed["refresh_token"],
                                  token_type_hint="refresh_token")
    assert revoked.status_code == 200


def test_public_client_flow_by_authlib(base_url: str) -> None:
    client = OAuth2Session("demo-spa", scope="charges:read", redirect_uri=SPA_CALLBACK,
                           code_challenge_method="S256", token_endpoint_auth_method="none")
    verifier = "s" * 43
    url, _state = client.create_authorization_url(f"{base_url}/oauth/authorize", code_verifier=verifier)
    location = log_in_and_approve(url)
    token = client.fetch_token(f"{base_url}/oauth/token", authorization_response=location, code_verifier=verifier)
    assert token["access_token"] and token["scope"] == "charges:read"


def test_code_is_single_use_and_pkce_bound(base_url: str) -> None:
    client = OAuth2Session("demo-web", "demo-web-secret", scope="charges:read", redirect_uri=CALLBACK,
                           code_challenge_method="S256")
    verifier = "w" * 50
    url, _ = client.create_authorization_url(f"{base_url}/oauth/authorize", code_verifier=verifier)
    code = parse_qs(urlsplit(log_in_and_approve(url)).query)["code"][0]
    wrong = requests.post(f"{base_url}/oauth/token", auth=("demo-web", "demo-web-secret"), timeout=10,
                          data={"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK,
                                "code_verifier": "x" * 50})
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"


def test_user_denial_is_redirected_as_access_denied(base_url: str) -> None:
    client = OAuth2Session("demo-web", "demo-web-secret", scope="charges:read", redirect_uri=CALLBACK,
                           code_challenge_method="S256")
    url, state = client.create_authorization_url(f"{base_url}/oauth/authorize", code_verifier="d" * 43)
    location = log_in_and_approve(url, decision="deny")
    assert parse_qs(urlsplit(location).query) == {
        "error": ["access_denied"], "error_description": ["The user denied the request."],
        "state": [state], "iss": [base_url]}


# ------------------------------------------------------------------ token endpoint (client_credentials, refresh, revocation)

def authorized_token(base_url: str) -> tuple[OAuth2Session, dict]:
    """demo-web's tokens from a full code + PKCE flow."""
    client = OAuth2Session("demo-web", "demo-web-secret", scope="charges:read charges:write",
                           redirect_uri=CALLBACK, code_challenge_method="S256")
    verifier = "t" * 64
    url, _ = client.create_authorization_url(f"{base_url}/oauth/authorize", code_verifier=verifier)
    token = client.fetch_token(f"{base_url}/oauth/token", authorization_response=log_in_and_approve(url),
                               code_verifier=verifier)
    return client, token


def introspect(base_url: str, token: str, client: tuple[str, str] = ("demo-web", "demo-web-secret")) -> dict:
    answer = ContractSession().post(f"{base_url}/oauth/introspect", data={"token": token}, auth=client, timeout=10)
    assert answer.status_code == 200
    return answer.json()


def test_client_credentials_by_authlib_in_both_auth_methods(base_url: str) -> None:
    for method in ("client_secret_basic", "client_secret_post"):
        client = OAuth2Session("demo-service", "demo-service-secret", scope="charges:read",
                               token_endpoint_auth_method=method)
        token = client.fetch_token(f"{base_url}/oauth/token", grant_type="client_credentials")
        assert (token["token_type"], token["scope"], token["expires_in"]) == ("Bearer", "charges:read", 900)
        assert "refresh_token" not in token
        assert introspect(base_url, token["access_token"], ("demo-service", "demo-service-secret"))["active"]


def test_wrong_secret_reaches_authlib_as_401_invalid_client(base_url: str) -> None:
    answer = ContractSession().post(f"{base_url}/oauth/token", data={"grant_type": "client_credentials"},
                                    auth=("demo-service", "wrong"), timeout=10)
    assert (answer.status_code, answer.headers["WWW-Authenticate"], answer.headers["Cache-Control"],
            answer.json()["error"]) == (401, 'Basic realm="oauth"', "no-store", "invalid_client")
    client = OAuth2Session("demo-service", "wrong", scope="charges:read")
    with pytest.raises(Exception) as info:
        client.fetch_token(f"{base_url}/oauth/token", grant_type="client_credentials")
    assert getattr(info.value, "error", None) == "invalid_client"


def test_refresh_reuse_by_authlib_revokes_the_family(base_url: str) -> None:
    client, token = authorized_token(base_url)
    refreshed = client.refresh_token(f"{base_url}/oauth/token", refresh_token=token["refresh_token"])
    with pytest.raises(Exception) as info:
        client.refresh_token(f"{base_url}/oauth/token", refresh_token=token["refresh_token"])
    assert getattr(info.value, "error", None) == "invalid_grant"
    assert introspect(base_url, refreshed["access_token"]) == {"active": False}
    with pytest.raises(Exception) as again:
        client.refresh_token(f"{base_url}/oauth/token", refresh_token=refreshed["refresh_token"])
    assert getattr(again.value, "error", None) == "invalid_grant"


def test_revoked_access_token_is_refused_by_the_api(base_url: str) -> None:
    client, token = authorized_token(base_url)
    api = ContractSession()
    headers = {"Authorization": f"Bearer {token['access_token']}", "x-api-key": "demo-api-key"}
    assert api.get(f"{base_url}/charges", headers=headers, timeout=10).status_code == 200
    revoked = client.revoke_token(f"{base_url}/oauth/revoke", token=token["access_token"],
                                  token_type_hint="access_token")
    assert revoked.status_code == 200
    refused = api.get(f"{base_url}/charges", headers=headers, timeout=10)
    assert refused.status_code == 401 and 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
    assert introspect(base_url, token["access_token"]) == {"active": False}
    # The refresh token of the grant still works (RFC 7009: revoking an access token MAY leave it).
    assert client.refresh_token(f"{base_url}/oauth/token", refresh_token=token["refresh_token"])["access_token"]


def test_staging_client_is_unknown_locally(base_url: str) -> None:
    answer = ContractSession().post(f"{base_url}/oauth/token", data={"grant_type": "client_credentials"},
                                    auth=("staging-web", "staging-web-secret"), timeout=10)
    assert (answer.status_code, answer.json()["error"]) == (401, "invalid_client")
