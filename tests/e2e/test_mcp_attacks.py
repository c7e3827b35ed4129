"""The attacks on agents' self-registration and on registered resources, through `authgate serve`
(the stack of test_mcp_clients.py: a test CA, the document host on 127.0.0.1, two MCP servers).
Every response goes through ContractSession (the error contract) and is asserted whole.

Not here, and why: DNS that answers a public address and then a private one needs a resolver the
test controls inside authgate's process; the fetcher's unit tests inject one
(tests/unit/oauth/client_metadata/test_fetcher.py: pinned to the first answer, and a name that also
resolves inside is refused). Documents on private (10/8, 172.16/12, 192.168/16) and metadata-service
addresses are refused before any connection in the same unit tests; this machine may send no packet
to such an address, so the e2e case is the unspecified address 0.0.0.0 (which Linux would connect
to loopback, had the check let it through).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
import requests

from tests.contract import ContractSession
from tests.document_server import Route
from tests.e2e.flows import pkce_pair
from tests.e2e.mcp_clients import CLIENT_NAME, REDIRECT_URI, Consent
from tests.e2e.mcp_stack import McpStack, token_by_code_flow

pytestmark = [pytest.mark.e2e]

TRANSPORT = {"x-request-id", "date", "server", "content-length", "connection", "x-amzn-requestid", "x-amz-apigw-id"}
NO_STORE_JSON = {"content-type": "application/json", "cache-control": "no-store", "pragma": "no-cache"}


@pytest.fixture
def session(mcp: McpStack) -> ContractSession:
    return ContractSession(mcp.issuer)


def contract_headers(response: requests.Response) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items() if k.lower() not in TRANSPORT}


def authorization_params(client_id: str, resource: str, redirect_uri: str = REDIRECT_URI) -> dict[str, str]:
    _verifier, challenge = pkce_pair()
    return {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": "mcp:read",
            "state": "attack", "code_challenge": challenge, "code_challenge_method": "S256", "resource": resource}


def authorize(session: ContractSession, params: dict[str, str]) -> requests.Response:
    return session.get("/oauth/authorize", params=params, headers={"Accept": "text/html"}, allow_redirects=False,
                       timeout=30)


def assert_error_page(response: requests.Response, code: str, title: str, detail: str,
                      oauth: str = "invalid_client") -> None:
    """The authorization endpoint's refusal: a page for the person, never a redirect (the redirect URI is
    the document's, so it is not trusted)."""
    assert response.status_code == 400, (response.status_code, response.text[:400])
    assert "Location" not in response.headers
    headers = contract_headers(response)
    assert (headers["content-type"], headers["cache-control"], headers["x-frame-options"]) == (
        "text/html; charset=utf-8", "no-store", "DENY")
    assert f"<title>{title}</title>" in response.text and f"<h1>{title}</h1>" in response.text
    # What went wrong, our code and the RFC 6749 code beside it, the request id: nothing else.
    assert (f'<p>{html.escape(detail)}</p><p class="meta">Error code: <code>{code}</code> &middot; OAuth error '
            f'<code>{oauth}</code> &middot; request id <code>{response.headers["x-request-id"]}</code></p>'
            ) in response.text


def token_request(session: ContractSession, client_id: str) -> requests.Response:
    return session.post("/oauth/token", timeout=30, data={
        "grant_type": "authorization_code", "code": "not-a-code", "redirect_uri": REDIRECT_URI,
        "code_verifier": "v" * 43, "client_id": client_id})


def assert_invalid_client(response: requests.Response, issuer: str, code: str, detail: str) -> None:
    """The token endpoint's refusal of a client whose document cannot be used: 401 invalid_client (RFC 6749 5.2)."""
    assert (response.status_code, contract_headers(response), response.json()) == (
        401, {**NO_STORE_JSON, "www-authenticate": 'Basic realm="oauth"'},
        {"error": "invalid_client", "error_description": detail, "error_uri": f"{issuer}/problems/{code}"})


def refused_everywhere(mcp: McpStack, session: ContractSession, url: str, code: str, title: str,
                       detail: str) -> None:
    """Refused at the authorization endpoint (a page) and at the token endpoint (401 invalid_client)."""
    assert_error_page(authorize(session, authorization_params(url, mcp.server.resource)), code, title, detail)
    assert_invalid_client(token_request(session, url), mcp.issuer, code, detail)


# ------------------------------------------------------------------ documents

def test_a_document_naming_another_client_id_is_refused(mcp: McpStack, session: ContractSession) -> None:
    url, other = mcp.documents.url("/attack/mismatch.json"), mcp.documents.url("/attack/someone-else.json")
    mcp.documents.document("/attack/mismatch.json", client_id=other, client_name=CLIENT_NAME,
                           redirect_uris=[REDIRECT_URI])
    # The other client_id is not repeated: the page shows no text the document's server chose.
    refused_everywhere(mcp, session, url, "client_metadata_client_id_mismatch", "Metadata document names another client",
                       f"The client's metadata document at {url} names another client_id; it must be exactly the "
                       "document's URL.")


def test_a_redirect_uri_not_in_the_document_is_refused_without_redirecting(mcp: McpStack,
                                                                           session: ContractSession) -> None:
    url = mcp.documents.document("/attack/redirect-uri.json", client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI])
    params = authorization_params(url, mcp.server.resource, redirect_uri="http://127.0.0.1:9/steal")
    assert_error_page(authorize(session, params), "redirect_uri_mismatch", "Redirect URI not registered",
                      "The redirect_uri does not match a URI registered for this client.", oauth="invalid_request")


def test_a_document_on_the_unspecified_address_is_refused_before_any_connection(
        mcp: McpStack, session: ContractSession) -> None:
    url = f"https://0.0.0.0:{mcp.documents.port}/attack/inside.json"
    mcp.documents.document("/attack/inside.json", client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI])
    before = len(mcp.documents.requests)
    refused_everywhere(mcp, session, url, "client_metadata_address_refused", "Metadata document host refused",
                       f"The client's metadata document at {url} could not be fetched: its host is not on an "
                       "address authgate fetches from.")
    assert len(mcp.documents.requests) == before  # nothing reached the host


def test_a_document_behind_a_redirect_is_refused(mcp: McpStack, session: ContractSession) -> None:
    target = mcp.documents.document("/attack/real.json", client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI])
    url = mcp.documents.url("/attack/moved.json")
    mcp.documents.routes["/attack/moved.json"] = Route(b"", 302, {"Location": target})
    refused_everywhere(mcp, session, url, "client_metadata_redirected", "Metadata document redirected",
                       f"The client's metadata document at {url} could not be fetched: authgate does not follow "
                       "redirects.")
    assert not any(path == "/attack/real.json" for path, _host in mcp.documents.requests)


def test_an_oversized_document_is_refused(mcp: McpStack, session: ContractSession) -> None:
    url = mcp.documents.url("/attack/large.json")
    document = {"client_id": url, "client_name": CLIENT_NAME, "redirect_uris": [REDIRECT_URI],
                "token_endpoint_auth_method": "none", "contacts": ["x" * 100] * 60}
    mcp.documents.routes["/attack/large.json"] = Route(json.dumps(document).encode())
    refused_everywhere(mcp, session, url, "client_metadata_too_large", "Metadata document too large",
                       f"The client's metadata document at {url} could not be fetched: it is larger than 5120 "
                       "bytes.")


@pytest.mark.parametrize("drip", [{"drip": 1.0}, {"header_drip": 0.05}],
                         ids=["a slow body", "headers a byte at a time"])
def test_a_slow_document_is_cut_off_at_the_4_second_total(mcp: McpStack, session: ContractSession,
                                                           drip: dict[str, float]) -> None:
    url = mcp.documents.url("/attack/slow.json")
    document = {"client_id": url, "client_name": CLIENT_NAME, "redirect_uris": [REDIRECT_URI],
                "token_endpoint_auth_method": "none"}
    mcp.documents.routes["/attack/slow.json"] = Route(json.dumps(document).encode(), **drip,
                                                      headers={"Content-Type": "application/json", "X-Pad": "p" * 300})
    response = authorize(session, authorization_params(url, mcp.server.resource))
    assert_error_page(response, "client_metadata_unreachable", "Metadata document unreachable",
                      f"The client's metadata document at {url} could not be fetched.")
    assert response.elapsed.total_seconds() < 4 + 1.5  # the fetch's total, and the rest of the request


# ------------------------------------------------------------------ resources

def test_a_token_for_one_resource_is_refused_by_another(mcp: McpStack, session: ContractSession) -> None:
    token = token_by_code_flow(mcp, mcp.server.resource, "/agents/one-resource.json")["access_token"]
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    # The resource it was issued for accepts it (the MCP answer itself is the SDK's business) ...
    assert requests.post(mcp.server.resource, json=call, headers=headers, timeout=30).status_code == 200
    # ... the other MCP server refuses it on `aud` ...
    other = requests.post(mcp.other.resource, json=call, headers=headers, timeout=30)
    assert (other.status_code, other.headers["WWW-Authenticate"], other.json()) == (
        401, (f'Bearer error="invalid_token", resource_metadata="{mcp.other.metadata_url}", '
             'error_description="The access token is not valid here."'),
        {"error": "invalid_token", "error_description": "The access token is not valid here."})
    # ... and so does authgate's own charges API, in the error contract.
    charges = session.get("/charges", headers={"Authorization": f"Bearer {token}", "x-api-key": "demo-api-key"},
                          timeout=30)
    charges_metadata = f"{mcp.issuer}/.well-known/oauth-protected-resource/charges"
    assert (charges.status_code, charges.headers["Content-Type"], charges.headers["WWW-Authenticate"]) == (
        401, "application/problem+json",
        (f'Bearer realm="api", error="invalid_token", error_description="The token is not meant for this resource '
        f'(aud).", resource_metadata="{charges_metadata}", DPoP algs="ES256 EdDSA RS256 PS256", '
        f'resource_metadata="{charges_metadata}"'))
    body = charges.json()
    assert {k: body[k] for k in ("type", "title", "status", "code", "detail")} == {
        "type": f"{mcp.issuer}/problems/invalid_token", "title": "Invalid access token", "status": 401,
        "code": "invalid_token", "detail": "The token is not meant for this resource (aud)."}
    assert body["traceId"] == charges.headers["x-request-id"]
    # Introspection answers only the resource the token is for.
    def introspect(credentials: dict[str, Any]) -> Any:
        return requests.post(f"{mcp.issuer}/oauth/introspect", data={"token": token}, timeout=30, auth=(
            credentials["introspection_client_id"], credentials["introspection_client_secret"])).json()
    assert introspect(mcp.other.credentials) == {"active": False}
    mine = introspect(mcp.server.credentials)
    assert (mine["active"], mine["aud"], mine["scope"]) == (True, mcp.server.resource, "mcp:read")


def test_a_resource_the_token_request_names_differently_is_invalid_target(mcp: McpStack,
                                                                         session: ContractSession) -> None:
    """The code was issued for one resource; the token request may not name another (RFC 8707 2.2)."""
    url = mcp.documents.document("/agents/switch.json", client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI])
    verifier, challenge = pkce_pair()
    params = {"response_type": "code", "client_id": url, "redirect_uri": REDIRECT_URI, "scope": "mcp:read",
              "state": "s", "code_challenge": challenge, "code_challenge_method": "S256",
              "resource": mcp.server.resource}
    answer = Consent(mcp.issuer).sign_in(f"{mcp.issuer}/oauth/authorize?{urlencode(params)}")
    response = session.post("/oauth/token", timeout=30, data={
        "grant_type": "authorization_code", "code": answer["code"], "redirect_uri": REDIRECT_URI,
        "code_verifier": verifier, "client_id": url, "resource": mcp.other.resource})
    assert (response.status_code, contract_headers(response)) == (400, NO_STORE_JSON)
    body = response.json()
    assert (body["error"], body["error_uri"]) == ("invalid_target", f"{mcp.issuer}/problems/invalid_target")


# ------------------------------------------------------------------ registration

def register(session: ContractSession, name: str) -> dict[str, Any]:
    response = session.post("/oauth/register", timeout=30, json={
        "client_name": name, "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]})
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_a_registration_access_token_of_another_client_is_refused(mcp: McpStack, session: ContractSession) -> None:
    mine, theirs = register(session, "mine"), register(session, "theirs")
    uri = mine["registration_client_uri"]
    assert uri == f"{mcp.issuer}/oauth/register/{mine['client_id']}"
    wrong = {"Authorization": f"Bearer {theirs['registration_access_token']}"}
    for method, extra in (("GET", {}), ("PUT", {"json": {"client_id": mine["client_id"], "client_name": "pwned",
                                                          "redirect_uris": ["https://evil.example/cb"]}}),
                          ("DELETE", {})):
        response = session.request(method, urlsplit(uri).path, headers=wrong, timeout=30, **extra)
        assert (response.status_code, contract_headers(response), response.json()) == (
            401, {**NO_STORE_JSON, "www-authenticate": 'Bearer realm="oauth", error="invalid_token"'},
            {"error": "invalid_token",
             "error_description": "The registration access token is missing or not valid for this client.",
             "error_uri": f"{mcp.issuer}/problems/invalid_registration_token"}), method
    # The registration is untouched and still answers its own token.
    own = session.get(urlsplit(uri).path, headers={"Authorization": f"Bearer {mine['registration_access_token']}"},
                      timeout=30)
    assert own.status_code == 200
    assert (own.json()["client_name"], own.json()["redirect_uris"]) == ("mine", [REDIRECT_URI])


def test_consent_names_a_metadata_client_and_warns_about_localhost(mcp: McpStack) -> None:
    """The consent page an agent's user judges: the client's name, the document's host, the redirect host,
    the identity-is-only-a-URL note and the localhost warning."""
    url = mcp.documents.document("/agents/consent.json", client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI])
    page = requests.get(f"{mcp.issuer}/oauth/authorize", params=authorization_params(url, mcp.server.resource),
                        headers={"Accept": "text/html"}, allow_redirects=False, timeout=30)
    assert page.status_code == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
    text = re.sub(r"\s+", " ", page.text)
    assert f'<h1>Sign in to authorize <span class="client">{CLIENT_NAME}</span></h1>' in text
    assert (f'{CLIENT_NAME} describes itself in a document on <strong class="document-host">127.0.0.1</strong> '
            f"(<code>{url}</code>). authgate has not verified who runs it.") in text
    assert 'you will be sent to <strong class="redirect-host">127.0.0.1</strong>' in text
    assert '<p class="warning localhost" role="alert">Every address this application can receive the answer at is ' \
           "on this device (localhost)" in text
