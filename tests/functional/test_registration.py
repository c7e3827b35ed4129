"""Dynamic client registration (RFC 7591) and its management (RFC 7592) through the token function,
then the registered client's code flow, which binds it to the signing-in user's tenant."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.conftest import Invoke
from tests.demo import CHALLENGE, ISSUER, VERIFIER
from tests.functional.authorize_support import Browser, assert_error_page, page_of, redirect_of
from tests.functional.self_registration_support import call, register, without_request_id
from tests.functional.token_support import TokenClient, body_of, headers_of

REDIRECT = "http://127.0.0.1:9/callback"
JSON = "application/json"
NO_STORE = {"Content-Type": JSON, "Cache-Control": "no-store", "Pragma": "no-cache"}


def test_register_read_update_delete(dcr: None, invoke: Invoke) -> None:
    result = register(invoke)
    assert result["statusCode"] == 201, result["body"]
    assert without_request_id(result) == NO_STORE
    body = body_of(result)
    client_id, token = body["client_id"], body["registration_access_token"]
    assert client_id.startswith("dcr_") and len(token) >= 43
    assert body == {"client_id": client_id, "client_id_issued_at": body["client_id_issued_at"],
                    "registration_client_uri": f"{ISSUER}/oauth/register/{client_id}",
                    "registration_access_token": token, "client_name": "CLI Agent", "redirect_uris": [REDIRECT],
                    "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                    "token_endpoint_auth_method": "none"}
    path = f"/oauth/register/{client_id}"
    resource = "/oauth/register/{client_id}"

    read = call(invoke, "GET", path, token=token, resource=resource)
    assert read["statusCode"] == 200
    assert body_of(read) == {k: v for k, v in body.items() if k != "registration_access_token"}

    updated = call(invoke, "PUT", path, {"client_id": client_id, "client_name": "Renamed", "redirect_uris":
                                         ["https://agent.example/cb"]}, token=token, resource=resource)
    assert updated["statusCode"] == 200, updated["body"]
    assert without_request_id(updated) == NO_STORE
    rotated = body_of(updated)["registration_access_token"]  # RFC 7592 3: a new token on every update
    assert rotated != token and len(rotated) >= 43
    assert body_of(updated) == {**body, "client_name": "Renamed", "redirect_uris": ["https://agent.example/cb"],
                                "grant_types": ["authorization_code"], "registration_access_token": rotated}

    gone = call(invoke, "DELETE", path, token=rotated, resource=resource)
    assert (gone["statusCode"], gone["body"]) == (204, "")
    again = call(invoke, "GET", path, token=rotated, resource=resource)
    assert again["statusCode"] == 401


def assert_invalid_registration_token(result: dict[str, Any]) -> None:
    """RFC 7592 3 / RFC 6750 3.1: 401 invalid_token, whole."""
    assert result["statusCode"] == 401
    assert without_request_id(result) == {**NO_STORE,
                                          "WWW-Authenticate": 'Bearer realm="oauth", error="invalid_token"'}
    assert body_of(result) == {"error": "invalid_token", "error_description": "The registration access token is "
                               "missing or not valid for this client.",
                               "error_uri": f"{ISSUER}/problems/invalid_registration_token"}


def test_an_update_rotates_the_registration_access_token_and_the_old_one_is_refused(dcr: None,
                                                                                      invoke: Invoke) -> None:
    body = body_of(register(invoke))
    client_id, first = body["client_id"], body["registration_access_token"]
    path, resource = f"/oauth/register/{client_id}", "/oauth/register/{client_id}"
    update = {"client_id": client_id, "client_name": "Renamed", "redirect_uris": [REDIRECT]}
    second = body_of(call(invoke, "PUT", path, update, token=first, resource=resource))["registration_access_token"]
    for method, payload in (("GET", None), ("PUT", update), ("DELETE", None)):
        assert_invalid_registration_token(call(invoke, method, path, payload, token=first, resource=resource))
    read = call(invoke, "GET", path, token=second, resource=resource)
    assert read["statusCode"] == 200 and body_of(read)["client_name"] == "Renamed"
    assert "registration_access_token" not in body_of(read)  # a read rotates nothing and shows no token
    third = body_of(call(invoke, "PUT", path, update, token=second, resource=resource))["registration_access_token"]
    assert_invalid_registration_token(call(invoke, "GET", path, token=second, resource=resource))
    assert call(invoke, "GET", path, token=third, resource=resource)["statusCode"] == 200


def test_a_token_of_another_client_is_invalid_token(dcr: None, invoke: Invoke) -> None:
    first, second = body_of(register(invoke)), body_of(register(invoke))
    assert_invalid_registration_token(call(invoke, "GET", f"/oauth/register/{first['client_id']}",
                                           token=second["registration_access_token"],
                                           resource="/oauth/register/{client_id}"))


@pytest.mark.parametrize("members, status, error, code, description", [
    ({"redirect_uris": ["http://evil.example/cb"]}, 400, "invalid_redirect_uri", "invalid_redirect_uri",
     ("redirect URI http://evil.example/cb must be https, http on a loopback address, or a private-use scheme "
     "such as com.example.app (RFC 8252 7).")),
    # Browsers read "\\" as "/": the host is evil.example, though urlsplit says 127.0.0.1 (loopback http).
    ({"redirect_uris": ["http://evil.example\\@127.0.0.1/cb"]}, 400, "invalid_redirect_uri", "invalid_redirect_uri",
     ("a redirect URI must not contain a backslash: browsers read it as a slash, so the URI would name another "
      "host.")),
    ({"token_endpoint_auth_method": "client_secret_basic"}, 400, "invalid_client_metadata",
     "invalid_client_metadata", ("token_endpoint_auth_method client_secret_basic needs a shared secret, which a "
     "self-registered client cannot have; use none or private_key_jwt.")),
    ({"software_statement": "eyJ..."}, 400, "invalid_client_metadata", "invalid_client_metadata",
     "Software statements are not supported (RFC 7591 2.3); send the metadata itself."),
    # RP-Initiated Logout 1.0 3.1: the redirect URIs' rules, but invalid_client_metadata (RFC 7591 3.2.2 keeps
    # invalid_redirect_uri for redirect_uris).
    ({"post_logout_redirect_uris": ["http://evil.example/bye"]}, 400, "invalid_client_metadata",
     "invalid_client_metadata", ("post-logout redirect URI http://evil.example/bye must be https, http on a "
                                 "loopback address, or a private-use scheme such as com.example.app (RFC 8252 7).")),
    ({"post_logout_redirect_uris": "https://app.example/bye"}, 400, "invalid_client_metadata",
     "invalid_client_metadata", "post_logout_redirect_uris must be a non-empty array of URIs."),
    # Back-Channel Logout 1.0 2.2: https (loopback only where the stack allows it), no fragment.
    ({"backchannel_logout_uri": "http://app.example/bcl"}, 400, "invalid_client_metadata",
     "invalid_client_metadata", "backchannel_logout_uri must be an https URL."),
    ({"backchannel_logout_uri": "https://127.0.0.1:9/bcl"}, 400, "invalid_client_metadata",
     "invalid_client_metadata", "backchannel_logout_uri must not point at loopback on this stack."),
    ({"backchannel_logout_uri": "https://app.example/bcl#x"}, 400, "invalid_client_metadata",
     "invalid_client_metadata", "backchannel_logout_uri must not have a fragment (Back-Channel Logout 1.0 2.2)."),
    ({"backchannel_logout_uri": ["https://app.example/bcl"]}, 400, "invalid_client_metadata",
     "invalid_client_metadata", "backchannel_logout_uri must be a string."),
    ({"backchannel_logout_session_required": "yes"}, 400, "invalid_client_metadata",
     "invalid_client_metadata", "backchannel_logout_session_required must be true or false."),
    # OIDC Dynamic Client Registration 1.0 2: one of id_token_signing_alg_values_supported (an RS256 stack: RS256);
    # OIDC Core 3.1.3.7 item 7: never none for the code flow.
    ({"id_token_signed_response_alg": "none"}, 400, "invalid_client_metadata", "invalid_client_metadata",
     ("id_token_signed_response_alg none is refused: ID tokens of the authorization code flow are signed (OpenID "
      "Connect Core 3.1.3.7).")),
    ({"id_token_signed_response_alg": "ES256"}, 400, "invalid_client_metadata", "invalid_client_metadata",
     "id_token_signed_response_alg must be one of RS256 (id_token_signing_alg_values_supported)."),
    ({"id_token_signed_response_alg": "HS256"}, 400, "invalid_client_metadata", "invalid_client_metadata",
     "id_token_signed_response_alg must be one of RS256 (id_token_signing_alg_values_supported)."),
    ({"id_token_signed_response_alg": ["RS256"]}, 400, "invalid_client_metadata", "invalid_client_metadata",
     "id_token_signed_response_alg must be one of RS256 (id_token_signing_alg_values_supported)."),
    # OpenID Connect CIBA Core 1.0 4: poll is the one mode offered; no signed requests, no user_code.
    *[({"backchannel_token_delivery_mode": mode}, 400, "invalid_client_metadata", "invalid_client_metadata",
       ("backchannel_token_delivery_mode must be poll, the only mode this provider supports "
       "(backchannel_token_delivery_modes_supported; OpenID Connect CIBA Core 4)."))
      for mode in ("ping", "push", "", ["poll"])],
    ({"backchannel_token_delivery_mode": "poll", "backchannel_client_notification_endpoint": "https://app.example/n"},
     400, "invalid_client_metadata", "invalid_client_metadata",
     ("backchannel_client_notification_endpoint is used only by the ping and push modes, which this provider does not "
     "support: state backchannel_token_delivery_mode poll (OpenID Connect CIBA Core 4).")),
    ({"backchannel_token_delivery_mode": "poll", "backchannel_authentication_request_signing_alg": "RS256"}, 400,
     "invalid_client_metadata", "invalid_client_metadata",
     ("backchannel_authentication_request_signing_alg is not supported: this provider takes no signed backchannel "
     "authentication requests (OpenID Connect CIBA Core 7.1.1).")),
    ({"backchannel_token_delivery_mode": "poll", "backchannel_user_code_parameter": True}, 400,
     "invalid_client_metadata", "invalid_client_metadata",
     ("backchannel_user_code_parameter true is not supported: this provider takes no user_code "
     "(backchannel_user_code_parameter_supported is false; OpenID Connect CIBA Core 4).")),
    ({"backchannel_user_code_parameter": "false"}, 400, "invalid_client_metadata", "invalid_client_metadata",
     "backchannel_user_code_parameter must be true or false."),
])
def test_refused_metadata(dcr: None, invoke: Invoke, members: dict[str, Any], status: int, error: str, code: str,
                          description: str) -> None:
    result = register(invoke, **members)
    assert (result["statusCode"], without_request_id(result), body_of(result)) == (
        status, NO_STORE, {"error": error, "error_description": description,
                           "error_uri": f"{ISSUER}/problems/{code}"})


def test_a_registration_states_where_sign_out_may_return(dcr: None, invoke: Invoke) -> None:
    """OpenID Connect RP-Initiated Logout 1.0 3.1: post_logout_redirect_uris registered, echoed and kept."""
    from authgate.stores.clients import ClientStore

    back = "http://127.0.0.1:9/signed-out"
    body = body_of(register(invoke, post_logout_redirect_uris=[back, back]))
    assert body["post_logout_redirect_uris"] == [back]
    client = ClientStore().get(body["client_id"], any_environment=True)
    assert client is not None and client.post_logout_redirect_uris == (back,)
    assert "post_logout_redirect_uris" not in body_of(register(invoke))


def test_a_registration_states_where_logout_tokens_go(dcr: None, invoke: Invoke) -> None:
    """OpenID Connect Back-Channel Logout 1.0 2.2: backchannel_logout_uri and _session_required kept and echoed."""
    from authgate.stores.clients import ClientStore

    uri = "https://app.example/backchannel?tenant=a"
    result = register(invoke, backchannel_logout_uri=uri, backchannel_logout_session_required=True)
    body = body_of(result)
    assert result["statusCode"] == 201
    assert (body["backchannel_logout_uri"], body["backchannel_logout_session_required"]) == (uri, True)
    client = ClientStore().get(body["client_id"], any_environment=True)
    assert client is not None and (client.backchannel_logout_uri, client.backchannel_logout_session_required) == (
        uri, True)
    assert "backchannel_logout_uri" not in body_of(register(invoke))


def test_a_registration_may_state_cibas_poll_mode(dcr: None, invoke: Invoke) -> None:
    """OpenID Connect CIBA Core 1.0 4: backchannel_token_delivery_mode poll is kept and echoed, on registration and
    on a read (RFC 7592 2.1); backchannel_user_code_parameter false needs nothing; without the mode nothing is
    echoed."""
    result = register(invoke, backchannel_token_delivery_mode="poll", backchannel_user_code_parameter=False)
    assert (result["statusCode"], without_request_id(result)) == (201, NO_STORE)
    body = body_of(result)
    client_id, token = body["client_id"], body["registration_access_token"]
    assert body == {"client_id": client_id, "client_id_issued_at": body["client_id_issued_at"],
                    "registration_client_uri": f"{ISSUER}/oauth/register/{client_id}",
                    "registration_access_token": token, "client_name": "CLI Agent", "redirect_uris": [REDIRECT],
                    "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                    "token_endpoint_auth_method": "none", "backchannel_token_delivery_mode": "poll"}
    read = call(invoke, "GET", f"/oauth/register/{client_id}", token=token, resource="/oauth/register/{client_id}")
    assert (read["statusCode"], body_of(read)) == (
        200, {k: v for k, v in body.items() if k != "registration_access_token"})
    assert "backchannel_token_delivery_mode" not in body_of(register(invoke))


def test_a_registration_chooses_the_id_tokens_algorithm(dcr: None, invoke: Invoke,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """OIDC Dynamic Client Registration 1.0 2: id_token_signed_response_alg kept and echoed; RS256 by default."""
    from authgate import caches
    from authgate.stores.clients import ClientStore

    explicit = body_of(register(invoke, id_token_signed_response_alg="RS256"))
    assert explicit["id_token_signed_response_alg"] == "RS256"
    assert "id_token_signed_response_alg" not in body_of(register(invoke))
    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "ES256")  # an ES256 stack offers RS256 and ES256
    caches.reset()
    result = register(invoke, id_token_signed_response_alg="ES256")
    assert (result["statusCode"], body_of(result)["id_token_signed_response_alg"]) == (201, "ES256")
    client = ClientStore().get(body_of(result)["client_id"], any_environment=True)
    assert client is not None and client.id_token_alg == "ES256"
    update = call(invoke, "PUT", f"/oauth/register/{client.client_id}",
                  {"client_id": client.client_id, "redirect_uris": [REDIRECT], "id_token_signed_response_alg": "none"},
                  token=body_of(result)["registration_access_token"],
                  resource="/oauth/register/{client_id}")
    assert (update["statusCode"], without_request_id(update), body_of(update)) == (400, NO_STORE, {
        "error": "invalid_client_metadata", "error_uri": f"{ISSUER}/problems/invalid_client_metadata",
        "error_description": "id_token_signed_response_alg none is refused: ID tokens of the authorization code "
                             "flow are signed (OpenID Connect Core 3.1.3.7)."})


def test_off_by_default(invoke: Invoke, browser: Browser) -> None:
    result = register(invoke)
    assert (result["statusCode"], body_of(result)["error"], body_of(result)["error_uri"]) == (
        403, "access_denied", f"{ISSUER}/problems/registration_not_enabled")


def test_registration_has_its_own_rate_limit(dcr: None, invoke: Invoke, monkeypatch: pytest.MonkeyPatch,
                                             clock: ManualClock) -> None:
    """On the stopped clock: the quota counts in fixed hours, and an hour turning between the requests refills it."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_REGISTRATION_RATE", "2")
    caches.reset()
    assert [register(invoke)["statusCode"] for _ in range(2)] == [201, 201]
    refused = register(invoke)
    assert refused["statusCode"] == 429
    assert int(headers_of(refused)["Retry-After"]) > 0
    assert body_of(refused)["error"] == "temporarily_unavailable"
    assert body_of(refused)["error_uri"] == f"{ISSUER}/problems/registration_rate_limited"


def test_the_deployment_caps_unassigned_registrations_and_says_so(dcr: None, invoke: Invoke, clock: ManualClock,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Its own code, 503 with Retry-After (when the next unused registration expires), and the
    RegistrationPoolFull metric the template's alarm watches."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_REGISTRATION_CAP", "1")
    caches.reset()
    assert register(invoke)["statusCode"] == 201
    clock.advance(3600)
    capsys.readouterr()
    refused = register(invoke)
    assert refused["statusCode"] == 503
    assert without_request_id(refused) == {**NO_STORE, "Retry-After": str(86400 - 3600)}
    assert body_of(refused) == {"error": "temporarily_unavailable", "error_description": (
        "This deployment holds as many registered clients no one has signed in to yet as it allows; retry after "
        f"{86400 - 3600} seconds."), "error_uri": f"{ISSUER}/problems/registration_pool_full"}
    (metric,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()
                 if line.startswith("{") and '"RegistrationPoolFull"' in line]
    assert (metric["ErrorCode"], metric["RegistrationPoolFull"]) == ("registration_pool_full", [1.0])
    clock.advance(86400 - 3600)  # the unused registration has expired: the pool has room again
    assert register(invoke)["statusCode"] == 201


@pytest.mark.slow
def test_an_unused_registration_expires_within_a_day_and_a_used_one_keeps_its_lifetime(
        dcr: None, invoke: Invoke, browser: Browser, clock: ManualClock) -> None:
    from authgate.stores.clients import ClientStore
    from authgate.stores.tenants import TenantStore

    tenants = TenantStore()
    demo = tenants.get("demo")
    assert demo is not None
    tenants.put(demo._replace(registered_clients=True))
    client_id = body_of(register(invoke, scope="charges:read"))["client_id"]
    unused = ClientStore().get(client_id)
    assert unused is not None and unused.expires_at == int(clock()) + 86400
    clock.advance(600)
    query = [("response_type", "code"), ("client_id", client_id), ("redirect_uri", REDIRECT), ("state", "s"),
             ("code_challenge", CHALLENGE), ("code_challenge_method", "S256")]
    page = page_of(browser.get(query))
    fields = list(page.hidden().items()) + [("tenant", "demo"), ("username", "alice"),
                                           ("password", "alice-password"), ("decision", "approve")]
    assert redirect_of(browser.post(fields)).one("code")
    used = ClientStore().get(client_id)
    assert used is not None and used.expires_at == int(clock()) + 30 * 86400  # DynamicRegistrationIdleDays


@pytest.mark.slow
def test_a_registered_client_signs_in_and_becomes_the_tenants(dcr: None, invoke: Invoke, browser: Browser,
                                                               tokens: TokenClient) -> None:
    from authgate.stores.clients import ClientStore
    from authgate.stores.tenants import TenantStore

    tenants = TenantStore()
    demo = tenants.get("demo")
    assert demo is not None
    tenants.put(demo._replace(registered_clients=True))
    client_id = body_of(register(invoke, scope="charges:read"))["client_id"]
    query = [("response_type", "code"), ("client_id", client_id), ("redirect_uri", REDIRECT), ("state", "s"),
             ("code_challenge", CHALLENGE), ("code_challenge_method", "S256")]
    page = page_of(browser.get(query))
    assert page.status == 200
    assert "This application registered itself: authgate has not verified who runs it." in page.text()
    fields = list(page.hidden().items()) + [("tenant", "demo"), ("username", "alice"),
                                           ("password", "alice-password"), ("decision", "approve")]
    code = redirect_of(browser.post(fields)).one("code")
    store = ClientStore()
    client = store.get(client_id)
    assert client is not None and (client.tenant_id, client.registration_pool) == ("demo", "demo")
    # Unused for two days: the next use pushes its expiry (DynamoDB TTL) back.
    store.save(client._replace(expires_at=client.expires_at - 2 * 86400))
    result = tokens.post([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", REDIRECT),
                          ("code_verifier", VERIFIER), ("client_id", client_id)])
    assert result["statusCode"] == 200, result["body"]
    touched = store.get(client_id)
    assert touched is not None and touched.expires_at >= client.expires_at


@pytest.mark.slow
def test_a_tenant_that_refuses_registered_clients_shows_a_page(dcr: None, invoke: Invoke, browser: Browser) -> None:
    client_id = body_of(register(invoke, scope="charges:read"))["client_id"]
    query = [("response_type", "code"), ("client_id", client_id), ("redirect_uri", REDIRECT), ("state", "s"),
             ("code_challenge", CHALLENGE), ("code_challenge_method", "S256")]
    page = page_of(browser.get(query))
    from authgate.stores.users import UserStore

    UserStore().create("acme", "alice", "alice-password")
    fields = list(page.hidden().items()) + [("tenant", "acme"), ("username", "alice"),
                                           ("password", "alice-password"), ("decision", "approve")]
    assert_error_page(browser.post(fields), "registered_client_not_allowed",
                      "Your organisation does not accept applications that registered themselves. Ask its "
                      "administrator.")


def test_each_registration_is_counted_in_its_own_metric(dcr: None, invoke: Invoke,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert register(invoke)["statusCode"] == 201
    documents = [json.loads(line) for line in capsys.readouterr().out.splitlines()
                 if line.startswith("{") and '"ClientRegistrations"' in line]
    assert len(documents) == 1
    (directive,) = documents[0]["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == "authgate"
    assert directive["Metrics"] == [{"Name": "ClientRegistrations", "Unit": "Count"}]
    assert documents[0]["ClientRegistrations"] in (1, 1.0, [1.0])
