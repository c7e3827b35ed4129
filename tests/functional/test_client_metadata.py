"""Clients known by a Client ID Metadata Document, through the authorize and token handlers
(draft-ietf-oauth-client-id-metadata-document-02), with the document served over real TLS on 127.0.0.1."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.demo import ISSUER, VERIFIER
from tests.document_server import DocumentServer, Route
from tests.functional.authorize_support import (
    ERROR_PAGE_CSP,
    Browser,
    assert_error_page,
    headers_of,
    page_of,
    redirect_of,
    without_request_id,
)
from tests.functional.self_registration_support import params
from tests.functional.token_support import BASIC_CHALLENGE, TokenClient, assert_error, body_of

REDIRECT = "http://127.0.0.1:9/callback"


def approve(browser: Browser, client_id: str, tenant: str = "demo", **overrides: str) -> dict[str, Any]:
    page = page_of(browser.get(params(client_id, **overrides)))
    assert page.status == 200, page.text()
    fields = list(page.hidden().items()) + [("tenant", tenant), ("username", "alice"),
                                           ("password", "alice-password"), ("decision", "approve")]
    return browser.post(fields)


def test_consent_names_the_client_its_document_host_and_warns_of_localhost(cimd: DocumentServer,
                                                                          browser: Browser) -> None:
    client_id = cimd.document("/agent.json", scope="charges:read")
    page = page_of(browser.get(params(client_id)))
    assert page.status == 200
    assert page.text() == (
        "Sign in to authorize Test Agent "
        f"Test Agent describes itself in a document on 127.0.0.1 ( {client_id} ). authgate has not verified who "
        "runs it. After you decide, you will be sent to 127.0.0.1 . Every address this application can receive "
        "the answer at is on this device (localhost): any program running on your computer could be the one "
        "asking. Approve only if you have just started this application yourself. "
        "Test Agent is asking for access to your organisation in Charges API : Your organisation's charges, "
        f"refunds and invoices. {ISSUER}/charges See your charges charges:read "
        "Organisation The short id your administrator gave you, such as acme . Leave it empty to sign in with your "
        "work email address as the username, or to your usual organisation. Username Password Approve Deny Manage "
        "your account You will be sent back to http://127.0.0.1:9 .")
    assert [i["name"] for i in page.inputs if i.get("type") == "text"] == ["tenant", "username"]


def test_a_document_without_a_name_is_shown_as_only_a_url(cimd: DocumentServer, browser: Browser) -> None:
    client_id = cimd.document("/nameless.json", client_name=None, scope="charges:read")
    text = page_of(browser.get(params(client_id))).text()
    assert (f"This application gave no name: all that is known about it is its address, {client_id} on "
            "127.0.0.1 . Approve only if you recognise this address.") in text


@pytest.mark.slow
def test_code_flow_then_token_and_refresh_with_the_cached_document(cimd: DocumentServer, browser: Browser,
                                                                     tokens: TokenClient) -> None:
    client_id = cimd.document("/flow.json", scope="charges:read")
    redirect = redirect_of(approve(browser, client_id))
    assert redirect.base == REDIRECT and redirect.one("iss") == ISSUER and redirect.one("state") == "s-1"
    fetches = len(cimd.requests)
    assert fetches == 1  # GET fetched it; the POST and the token request read the cached record

    result = tokens.post([("grant_type", "authorization_code"), ("code", redirect.one("code")),
                          ("redirect_uri", REDIRECT), ("code_verifier", VERIFIER), ("client_id", client_id)])
    assert result["statusCode"] == 200, result["body"]
    body = body_of(result)
    assert body["scope"] == "charges:read" and body["token_type"] == "Bearer"
    claims = json.loads(base64.urlsafe_b64decode(body["access_token"].split(".")[1] + "=="))
    assert (claims["client_id"], claims["tenant"]) == (client_id, "demo")
    again = tokens.post([("grant_type", "refresh_token"), ("refresh_token", body["refresh_token"]),
                         ("client_id", client_id)])
    assert again["statusCode"] == 200
    assert len(cimd.requests) == fetches


def test_a_document_naming_another_client_id_is_an_error_page(cimd: DocumentServer, browser: Browser) -> None:
    url = cimd.url("/liar.json")
    cimd.routes["/liar.json"] = Route(json.dumps({"client_id": "https://other.example/agent.json",
                                                  "redirect_uris": [REDIRECT]}).encode())
    assert_error_page(browser.get(params(url)), "client_metadata_client_id_mismatch",
                      f"The client's metadata document at {url} names another client_id; it must be exactly the "
                      "document's URL.")


def test_a_redirect_uri_not_in_the_document_is_never_redirected_to(cimd: DocumentServer, browser: Browser) -> None:
    client_id = cimd.document("/agent.json")
    assert_error_page(browser.get(params(client_id, redirect_uri="https://attacker.example/cb")),
                      "redirect_uri_mismatch", "The redirect_uri does not match a URI registered for this client.")


def test_a_redirected_document_is_an_error_page(cimd: DocumentServer, browser: Browser) -> None:
    cimd.routes["/moved.json"] = Route(b"", 301, {"Location": "https://169.254.169.254/"})
    url = cimd.url("/moved.json")
    assert_error_page(browser.get(params(url)), "client_metadata_redirected",
                      f"The client's metadata document at {url} could not be fetched: authgate does not follow "
                      "redirects.")


def test_a_shared_secret_document_is_refused(cimd: DocumentServer, browser: Browser) -> None:
    client_id = cimd.document("/secret.json", token_endpoint_auth_method="client_secret_basic")
    assert_error_page(browser.get(params(client_id)), "client_metadata_invalid",
                      f"The client's metadata document at {client_id} is invalid: token_endpoint_auth_method "
                      "client_secret_basic needs a shared secret, which a self-registered client cannot have; use "
                      "none or private_key_jwt.")


def test_a_document_asking_for_an_id_token_algorithm_not_offered_is_refused(cimd: DocumentServer,
                                                                            browser: Browser) -> None:
    """OIDC Dynamic Client Registration 1.0 2 (an RS256 stack offers RS256 only); never none (OIDC Core 3.1.3.7)."""
    client_id = cimd.document("/es256.json", id_token_signed_response_alg="ES256")
    assert_error_page(browser.get(params(client_id)), "client_metadata_invalid",
                      f"The client's metadata document at {client_id} is invalid: id_token_signed_response_alg must "
                      "be one of RS256 (id_token_signing_alg_values_supported).")
    client_id = cimd.document("/none.json", id_token_signed_response_alg="none")
    assert_error_page(browser.get(params(client_id)), "client_metadata_invalid",
                      f"The client's metadata document at {client_id} is invalid: id_token_signed_response_alg none "
                      "is refused: ID tokens of the authorization code flow are signed (OpenID Connect Core "
                      "3.1.3.7).")


def test_a_document_stating_a_ciba_mode_other_than_poll_is_refused(cimd: DocumentServer, browser: Browser) -> None:
    """OpenID Connect CIBA Core 1.0 4: the document's metadata is checked as a registration's (poll only)."""
    client_id = cimd.document("/ping.json", backchannel_token_delivery_mode="ping")
    assert_error_page(browser.get(params(client_id)), "client_metadata_invalid",
                      f"The client's metadata document at {client_id} is invalid: backchannel_token_delivery_mode "
                      "must be poll, the only mode this provider supports (backchannel_token_delivery_modes_supported; "
                      "OpenID Connect CIBA Core 4).")


def test_a_document_on_an_es256_stack_may_choose_es256_id_tokens(cimd: DocumentServer, browser: Browser,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An ES256 stack offers RS256 and ES256 (OIDC Discovery 1.0 3); the cached client keeps the document's choice."""
    from authgate import caches
    from authgate.stores.clients import ClientStore

    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "ES256")
    caches.reset()
    client_id = cimd.document("/es256-ok.json", id_token_signed_response_alg="ES256")
    assert page_of(browser.get(params(client_id))).status == 200
    client = ClientStore().get(client_id, any_environment=True)
    assert client is not None and client.id_token_alg == "ES256"


def test_a_redirect_uri_with_a_backslash_is_refused(cimd: DocumentServer, browser: Browser) -> None:
    """http://evil.example\\@127.0.0.1/cb is loopback http to urlsplit, evil.example to a browser."""
    sneaky = "http://evil.example\\@127.0.0.1/cb"
    client_id = cimd.document("/backslash.json", redirect_uris=[sneaky])
    assert_error_page(browser.get(params(client_id, redirect_uri=sneaky)), "client_metadata_invalid",
                      f"The client's metadata document at {client_id} is invalid: a redirect URI must not contain a "
                      "backslash: browsers read it as a slash, so the URI would name another host.")


@pytest.mark.slow
def test_a_tenant_that_does_not_accept_the_host_gets_a_page(cimd: DocumentServer, browser: Browser) -> None:
    from authgate.stores.users import UserStore

    UserStore().create("acme", "alice", "alice-password")
    client_id = cimd.document("/agent.json")
    assert_error_page(approve(browser, client_id, tenant="acme"), "client_metadata_not_allowed",
                      "Your organisation does not accept applications known only by a metadata document from "
                      "127.0.0.1. Ask its administrator.")


@pytest.mark.slow
def test_the_token_endpoint_refetches_a_stale_document_and_refuses_a_broken_one(
        cimd: DocumentServer, browser: Browser, tokens: TokenClient) -> None:
    from authgate.stores.clients import ClientStore

    client_id = cimd.document("/stale.json")
    code = redirect_of(approve(browser, client_id)).one("code")
    store = ClientStore()

    def make_stale() -> None:
        cached = store.get(client_id)
        assert cached is not None
        store.save(cached._replace(refresh_at=1))  # the next use fetches again

    make_stale()
    fetches = len(cimd.requests)
    result = tokens.post([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", REDIRECT),
                          ("code_verifier", VERIFIER), ("client_id", client_id)])
    assert result["statusCode"] == 200, result["body"]
    assert len(cimd.requests) == fetches + 1
    refreshed = store.get(client_id)
    assert refreshed is not None and refreshed.refresh_at > 1 and refreshed.expires_at > refreshed.refresh_at

    make_stale()
    cimd.routes["/stale.json"] = Route(b"{}", 500)
    result = tokens.post([("grant_type", "refresh_token"), ("refresh_token", body_of(result)["refresh_token"]),
                          ("client_id", client_id)])
    assert_error(result, 401, "invalid_client",
                 f"The client's metadata document at {client_id} could not be fetched.",
                 {"WWW-Authenticate": BASIC_CHALLENGE}, code="client_metadata_unreachable")


def test_par_accepts_a_metadata_client(cimd: DocumentServer, tokens: TokenClient) -> None:
    client_id = cimd.document("/par.json")
    result = tokens.post(params(client_id), path="/oauth/par")
    assert result["statusCode"] == 201, result["body"]
    assert set(body_of(result)) == {"request_uri", "expires_in"}


def test_off_by_default_an_https_client_id_is_unknown(server: DocumentServer, browser: Browser) -> None:
    client_id = server.document("/agent.json")
    assert_error_page(browser.get(params(client_id)), "unknown_client",
                      "No client with this client_id is registered. Check the client_id the application sends.")


def rate_limited_page(result: dict[str, Any], detail: str) -> None:
    """The authorization endpoint's 429 page of client_metadata_rate_limited, whole; `detail` holds {retry}."""
    headers = without_request_id(result)
    retry = headers.pop("Retry-After")
    assert 0 < int(retry) <= 60
    assert headers == {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                       "Pragma": "no-cache", "Content-Security-Policy": ERROR_PAGE_CSP, "X-Frame-Options": "DENY",
                       "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
    assert result["statusCode"] == 429
    assert page_of(result).text() == (
        f"Too many metadata fetches {detail.format(retry=retry)} Error code: client_metadata_rate_limited · "
        f"OAuth error temporarily_unavailable · request id {headers_of(result)['x-request-id']}")


def limits(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    """Set fetch budgets. They count in fixed minutes (limits.window), so a test that spends one stops the
    clock (`clock`): on the real clock a minute turning between its requests refills the budget."""
    from authgate import caches

    for name, value in values.items():
        monkeypatch.setenv(f"AUTHGATE_CLIENT_METADATA_{name.upper()}_LIMIT", value)
    caches.reset()


def make_stale(client_id: str, lifetime: int = 600, stale_for: int = 1) -> None:
    """The record as if fetched `lifetime + stale_for` seconds ago with that lifetime (max-age)."""
    from authgate import clock
    from authgate.stores.clients import ClientStore

    cached = ClientStore().get(client_id)
    assert cached is not None
    now = clock.seconds()
    ClientStore().save(cached._replace(created_at=now - stale_for - lifetime, refresh_at=now - stale_for))


def test_new_documents_from_one_host_have_their_own_limit(cimd: DocumentServer, browser: Browser,
                                                          monkeypatch: pytest.MonkeyPatch, clock: ManualClock) -> None:
    limits(monkeypatch, fetch="1")
    assert page_of(browser.get(params(cimd.document("/limited.json")))).status == 200  # the host's one this minute
    other = cimd.document("/limited-too.json")
    rate_limited_page(browser.get(params(other), source_ip="198.51.100.20"),
                      "Too many fetches of client metadata documents from 127.0.0.1; retry after {retry} "
                      "seconds.")
    assert [path for path, _ in cimd.requests] == ["/limited.json"]


@pytest.mark.slow
def test_junk_urls_on_a_host_do_not_lock_out_its_valid_clients(cimd: DocumentServer, browser: Browser,
                                                               tokens: TokenClient, clock: ManualClock) -> None:
    """30 URLs that fail, asked for from one address, spend that address's budget of new documents
    (10 a minute), not the host's refreshes nor its new documents: the host's valid client keeps
    working (a refetch, the page, the token), and another client of the host is fetched for the
    first time meanwhile."""
    client_id = cimd.document("/valid.json")
    assert page_of(browser.get(params(client_id))).status == 200
    outcomes = [browser.get(params(cimd.url(f"/junk-{i}.json")), source_ip="203.0.113.66")["statusCode"]
                for i in range(30)]
    assert outcomes == [400] * 10 + [429] * 20  # 10 fetched and refused by their host, then the address's limit
    rate_limited_page(browser.get(params(cimd.url("/junk-30.json")), source_ip="203.0.113.66"),
                      "Too many new client metadata documents were asked for from this address; retry after {retry} "
                      "seconds.")
    assert sum(path.startswith("/junk-") for path, _ in cimd.requests) == 10

    make_stale(client_id)
    fetched = len(cimd.requests)
    code = redirect_of(approve(browser, client_id)).one("code")
    assert len(cimd.requests) == fetched + 1  # the stale record was fetched again
    result = tokens.post([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", REDIRECT),
                          ("code_verifier", VERIFIER), ("client_id", client_id)])
    assert result["statusCode"] == 200, result["body"]
    newcomer = cimd.document("/newcomer.json")
    assert page_of(browser.get(params(newcomer), source_ip="192.0.2.44")).status == 200


@pytest.mark.slow
def test_a_stale_record_is_served_while_authgates_own_limit_refuses_its_refetch(
        cimd: DocumentServer, browser: Browser, tokens: TokenClient, monkeypatch: pytest.MonkeyPatch,
        clock: ManualClock) -> None:
    """For one more lifetime (here max-age 600 s), and never once its host refuses the document."""
    first, second = cimd.document("/first.json"), cimd.document("/second.json")
    assert page_of(browser.get(params(first))).status == page_of(browser.get(params(second))).status == 200
    limits(monkeypatch, fetch="1")
    make_stale(first)
    make_stale(second, stale_for=300)
    assert page_of(browser.get(params(first))).status == 200  # the host's one refresh this minute
    fetched = len(cimd.requests)
    code = redirect_of(approve(browser, second)).one("code")  # refused a refetch: the stale record serves
    result = tokens.post([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", REDIRECT),
                          ("code_verifier", VERIFIER), ("client_id", second)])
    assert result["statusCode"] == 200, result["body"]
    assert len(cimd.requests) == fetched

    make_stale(second, stale_for=601)  # past one more lifetime: no longer served
    rate_limited_page(browser.get(params(second)), "Too many fetches of client metadata documents from 127.0.0.1; "
                                                   "retry after {retry} seconds.")
    limits(monkeypatch, fetch="30")
    make_stale(first)
    cimd.routes["/first.json"] = Route(b"{}", 404)  # its host now refuses it: never served stale
    assert_error_page(browser.get(params(first)), "client_metadata_unreachable",
                      f"The client's metadata document at {first} could not be fetched.")


def test_the_deployment_fetches_at_most_its_budget_of_new_documents(cimd: DocumentServer, browser: Browser,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     clock: ManualClock) -> None:
    limits(monkeypatch, deployment="2")
    for i in range(2):
        assert page_of(browser.get(params(cimd.document(f"/d{i}.json")), source_ip=f"192.0.2.{i}")).status == 200
    rate_limited_page(browser.get(params(cimd.document("/d2.json")), source_ip="192.0.2.2"),
                      "authgate is fetching as many client metadata documents as it allows; retry after {retry} "
                      "seconds.")
    assert len(cimd.requests) == 2


@pytest.mark.slow
def test_introspection_and_revocation_never_fetch_a_document(cimd: DocumentServer, browser: Browser,
                                                              tokens: TokenClient) -> None:
    """Draft 5: documents are resolved for the code flow (authorization, PAR, token). A client_id never
    fetched is an unknown client at /oauth/introspect and /oauth/revoke; a held record is used as it is."""
    unseen = cimd.document("/unseen.json")
    for path in ("/oauth/introspect", "/oauth/revoke"):
        result = tokens.post([("token", "x"), ("client_id", unseen)], path=path)
        assert_error(result, 401, "invalid_client", "Client authentication failed.",
                     {"WWW-Authenticate": BASIC_CHALLENGE})
    assert cimd.requests == []

    held = cimd.document("/held.json")
    code = redirect_of(approve(browser, held)).one("code")
    grant = tokens.post([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", REDIRECT),
                         ("code_verifier", VERIFIER), ("client_id", held)])
    refresh_token = body_of(grant)["refresh_token"]
    make_stale(held)
    fetched = len(cimd.requests)
    seen = tokens.post([("token", refresh_token), ("client_id", held)], path="/oauth/introspect")
    assert (seen["statusCode"], body_of(seen)["active"], body_of(seen)["client_id"]) == (200, True, held)
    revoked = tokens.post([("token", refresh_token), ("client_id", held)], path="/oauth/revoke")
    assert (revoked["statusCode"], body_of(revoked)) == (200, {})
    assert len(cimd.requests) == fetched


def test_a_private_key_jwt_document_with_jwks_uri_authenticates_by_assertion(cimd: DocumentServer,
                                                                              tokens: TokenClient) -> None:
    """Draft 8.2: the keys come from the document's jwks_uri (fetched under the same rules); the client
    must then authenticate with an assertion signed by one of them (RFC 7523 2.2)."""
    import time

    from tests.functional.assertion_support import (
        assertion,
        assertion_fields,
        new_private_jwk,
        public_of,
    )

    private = new_private_jwk("EC", kid="agent-1")
    cimd.routes["/jwks.json"] = Route(json.dumps({"keys": [public_of(private)]}).encode())
    client_id = cimd.document("/confidential.json", token_endpoint_auth_method="private_key_jwt",
                              jwks_uri=cimd.url("/jwks.json"))
    pushed = tokens.post(params(client_id) + assertion_fields(assertion(private, client_id, int(time.time()))),
                         path="/oauth/par")
    assert pushed["statusCode"] == 201, pushed["body"]
    assert [path for path, _ in cimd.requests] == ["/confidential.json", "/jwks.json"]
    # Without an assertion the same client is refused: its document says private_key_jwt.
    refused = tokens.post(params(client_id), path="/oauth/par")
    assert refused["statusCode"] == 401 and body_of(refused)["error"] == "invalid_client"


def test_an_administrators_client_under_an_https_id_is_never_fetched_over(cimd: DocumentServer, browser: Browser,
                                                                          tokens: TokenClient) -> None:
    """Draft 7.2 (pre-registration): the record is used as it is; one of another environment is not
    overwritten by a fetched document."""
    from authgate.stores.clients import ClientStore

    client_id = cimd.document("/prereg.json")
    ClientStore().create(client_id=client_id, tenant_id="demo", client_type="public", environment="staging",
                         redirect_uris=[REDIRECT], grant_types=["authorization_code"], scopes=["charges:read"])
    assert_error_page(browser.get(params(client_id)), "client_of_another_environment",
                      f"The client {client_id} is registered for the staging environment, not for this one "
                      "(local). Use a client registered here.")
    result = tokens.post(params(client_id), path="/oauth/par")
    assert result["statusCode"] == 401 and body_of(result)["error"] == "invalid_client"
    assert body_of(result)["error_uri"] == f"{ISSUER}/problems/client_metadata_not_allowed"
    record = ClientStore().get(client_id, any_environment=True)
    assert record is not None and (record.environment, record.source) == ("staging", "")
    assert cimd.requests == [("/prereg.json", f"127.0.0.1:{cimd.port}")]  # fetched once, never written


@pytest.mark.slow
def test_a_wrong_organisation_reads_as_wrong_credentials_and_is_never_confirmed(cimd: DocumentServer,
                                                                                 browser: Browser) -> None:
    client_id = cimd.document("/org.json")
    page = page_of(browser.get(params(client_id)))
    for tenant in ("no-such-org", "acme"):  # one does not exist, one has no user alice
        fields = list(page.hidden().items()) + [("tenant", tenant), ("username", "alice"),
                                               ("password", "alice-password"), ("decision", "approve")]
        again = page_of(browser.post(fields))
        assert again.status == 200
        assert "The organisation, username or password is incorrect" in again.text()
        assert "asking for access to your organisation" in again.text() and "Acme" not in again.text()
        assert [i.get("value") for i in again.inputs if i.get("name") == "tenant"] == [tenant]
