"""Sign-out of a federated session through the authorize function: authgate's session ends, then the upstream's.

OpenID Connect: the browser goes to the scripted provider's end_session_endpoint and comes back to
GET /oauth/federation/logged-out; SAML: a LogoutRequest to the IdP's SingleLogoutService, its
LogoutResponse back at GET /saml/{tenant}/slo (crafted here with tests/saml_support.py: signed or not,
right or wrong). Every answer is asserted whole.
"""

from __future__ import annotations

import base64
import re
import zlib
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from authgate.clock import ManualClock
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import ISSUER
from tests.document_server import DocumentServer, Route
from tests.functional.authorize_support import (
    ERROR_PAGE_CSP,
    Browser,
    headers_of,
    page_of,
    without_request_id,
)
from tests.functional.logout_support import ALICE, BACK, CLEARED, hint, logout, signed_in
from tests.functional.self_registration_support import register
from tests.functional.token_support import body_of
from tests.saml_support import (
    IDP_ENTITY_ID,
    IDP_SLO_URL,
    SSO_URL,
    logout_response,
    redirect_query,
    saml_record,
    signing_key,
    store_sp_keys,
)
from tests.upstream_oidc import CLIENT_ID, ScriptedProvider

SUBJECT = "carol-upstream-1"
UPSTREAM_SID = "upstream-session-1"
NAME_ID = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent|dana-7f3a"
LOGGED_OUT = f"{ISSUER}/oauth/federation/logged-out"
SLO = f"{ISSUER}/saml/demo/slo"
RESPONDER = "urn:oasis:names:tc:SAML:2.0:status:Responder"
LOGOUT_COOKIE = re.compile(r"authgate_logout=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; HttpOnly; SameSite=Lax; Path=/; "
                           r"Max-Age=900")
LOGOUT_COOKIE_CLEARED = "authgate_logout=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"
PAGE_HEADERS = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Pragma": "no-cache",
                "Content-Security-Policy": ERROR_PAGE_CSP, "X-Frame-Options": "DENY",
                "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
NOTHING_PENDING = ("No sign-out is waiting to finish in this browser: it took too long, or began in another "
                   "browser. A sign-out that began at this server has ended your session here.")


@pytest.fixture
def saml_idp(browser: Browser) -> Any:
    """The tenant demo's SAML IdP, with a SingleLogoutService."""
    from authgate.stores.identity_providers import IdentityProviderStore

    record = saml_record("demo", {"entity_id": IDP_ENTITY_ID, "sso_url": SSO_URL, "slo_url": IDP_SLO_URL,
                                  "certificates": [signing_key().cert_pem], "name_id_format": NAME_ID.split("|")[0]})
    IdentityProviderStore().create(record)
    return record


def oidc_session(browser: Browser, op: ScriptedProvider, id_token: str) -> Any:
    from authgate.federation.secrets import seal_id_token
    from authgate.sessions.model import Upstream

    return signed_in(browser, Upstream(op.issuer, "democorp", "oidc", SUBJECT, sid=UPSTREAM_SID,
                                       id_token=seal_id_token("demo", op.issuer, SUBJECT, id_token)))


def saml_session(browser: Browser) -> Any:
    from authgate.sessions.model import Upstream

    return signed_in(browser, Upstream(IDP_ENTITY_ID, "democorp", "saml", NAME_ID, sid="_session-1",
                                       name_id=NAME_ID))


def live(session: Any) -> bool:
    from authgate.stores.sessions import SessionStore

    return any(s.sid == session.sid for s in SessionStore().of_user("demo", ALICE))


def back(browser: Browser, path: str, params: list[tuple[str, str]], path_params: dict[str, str] | None = None,
         resource: str | None = None) -> dict[str, Any]:
    """The browser sent back to authgate by the IdP: GET `path` with `params`, its cookies."""
    request = HttpRequest("GET", path, urlencode(params), browser._headers())
    result = browser.invoke("authorize", build_event(request, resource=resource or path, path_params=path_params))
    browser.keep_cookies(result)
    return result


def slo(browser: Browser, params: list[tuple[str, str]]) -> dict[str, Any]:
    return back(browser, "/saml/demo/slo", params, {"tenant": "demo"}, "/saml/{tenant}/slo")


def left_for(result: dict[str, Any], endpoint: str) -> dict[str, list[str]]:
    """The query of the redirect to `endpoint` that ended authgate's sign-out, once its headers are checked whole."""
    headers = without_request_id(result)
    location = headers.pop("Location")
    cookies = result["multiValueHeaders"]["Set-Cookie"]
    assert (result["statusCode"], result["body"]) == (302, "")
    assert headers == {"Cache-Control": "no-store", "Pragma": "no-cache", "Referrer-Policy": "no-referrer",
                       "Set-Cookie": ", ".join(cookies)}
    assert cookies[0] == CLEARED and LOGOUT_COOKIE.fullmatch(cookies[1]) and len(cookies) == 2
    assert location.split("?")[0] == endpoint
    return parse_qs(urlsplit(location).query)


def assert_page(result: dict[str, Any], text: str, cookies: list[str]) -> None:
    assert result["statusCode"] == 200
    expected = {**PAGE_HEADERS, **({"Set-Cookie": ", ".join(cookies)} if cookies else {})}
    assert without_request_id(result) == expected
    assert page_of(result).text() == text


def assert_error_page(result: dict[str, Any], detail: str) -> None:
    assert result["statusCode"] == 400 and "Location" not in headers_of(result)
    assert "Set-Cookie" not in headers_of(result)
    text = page_of(result).text()
    assert detail in text and "Error code: invalid_request" in text


# -- OpenID Connect --------------------------------------------------------------------------------------------


def test_sign_out_ends_here_then_at_the_provider_and_finishes_when_back(clock: ManualClock, browser: Browser,
                                                                       op: ScriptedProvider) -> None:
    id_token = op.id_token()
    session = oidc_session(browser, op, id_token)
    result = logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK),
                              ("state", "s-1")])
    query = left_for(result, f"{op.issuer}/logout")
    state = query["state"][0]
    assert query == {"id_token_hint": [id_token], "post_logout_redirect_uri": [LOGGED_OUT], "state": [state],
                     "client_id": [CLIENT_ID]}
    assert len(state) >= 22 and not live(session)  # authgate's session ended before the browser left
    returned = back(browser, "/oauth/federation/logged-out", [("state", state)])
    assert (returned["statusCode"], returned["body"]) == (302, "")
    assert without_request_id(returned) == {"Location": f"{BACK}?state=s-1", "Cache-Control": "no-store",
                                            "Pragma": "no-cache", "Referrer-Policy": "no-referrer",
                                            "Set-Cookie": LOGOUT_COOKIE_CLEARED}
    # The cookie is spent: the same return again has nothing to finish.
    assert_error_page(back(browser, "/oauth/federation/logged-out", [("state", state)]), NOTHING_PENDING)


def test_without_an_application_to_return_to_the_end_is_the_signed_out_page(clock: ManualClock, browser: Browser,
                                                                            op: ScriptedProvider) -> None:
    session = oidc_session(browser, op, op.id_token())
    state = left_for(logout(browser, [("id_token_hint", hint(session))]), f"{op.issuer}/logout")["state"][0]
    assert_page(back(browser, "/oauth/federation/logged-out", [("state", state)]),
                "You are signed out You are signed out. You can close this window.", [LOGOUT_COOKIE_CLEARED])


def test_a_self_registered_client_is_still_only_offered_a_link_when_back(dcr: None, invoke: Any, clock: ManualClock,
                                                                        browser: Browser,
                                                                        op: ScriptedProvider) -> None:
    elsewhere = "https://phish.example/signed-out"
    client_id = str(body_of(register(invoke, post_logout_redirect_uris=[elsewhere]))["client_id"])
    session = oidc_session(browser, op, op.id_token())
    # The client's ID token names no session of this browser: no redirect, after the upstream as before.
    result = logout(browser, [("id_token_hint", hint(sub="usr_someone_else", client_id=client_id)),
                              ("post_logout_redirect_uri", elsewhere)])
    assert page_of(result).text().startswith("Sign out?")
    fields = page_of(result).hidden()
    state = left_for(logout(browser, [*fields.items(), ("confirm", "yes")], method="POST"),
                     f"{op.issuer}/logout")["state"][0]
    returned = back(browser, "/oauth/federation/logged-out", [("state", state)])
    assert returned["statusCode"] == 200 and "Location" not in headers_of(returned)
    assert page_of(returned).text() == (
        "You are signed out You are signed out. The application asks to take you to https://phish.example . It "
        "registered itself with this server, which cannot vouch for that address: go on only if you trust it. "
        "Continue to https://phish.example")
    assert not live(session)


@pytest.mark.parametrize("params", [[("state", "not-the-one-sent-0123456")], []])
def test_a_return_that_is_not_this_browsers_sign_out_finishes_nothing(clock: ManualClock, browser: Browser,
                                                                     op: ScriptedProvider,
                                                                     params: list[tuple[str, str]]) -> None:
    session = oidc_session(browser, op, op.id_token())
    left_for(logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK)]),
             f"{op.issuer}/logout")
    assert_error_page(back(browser, "/oauth/federation/logged-out", params), NOTHING_PENDING)


def test_a_return_after_the_cookie_expired_finishes_nothing(clock: ManualClock, browser: Browser,
                                                            op: ScriptedProvider) -> None:
    session = oidc_session(browser, op, op.id_token())
    state = left_for(logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK)]),
                     f"{op.issuer}/logout")["state"][0]
    clock.advance(901)
    assert_error_page(back(browser, "/oauth/federation/logged-out", [("state", state)]), NOTHING_PENDING)


def test_a_provider_that_cannot_be_reached_leaves_the_person_told(clock: ManualClock, browser: Browser,
                                                                  op: ScriptedProvider,
                                                                  server: DocumentServer) -> None:
    server.routes[f"/{op.name}/.well-known/openid-configuration"] = Route(b"down", 503)
    session = oidc_session(browser, op, op.id_token())
    result = logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK),
                              ("state", "s-1")])
    assert_page(result, "You are signed out You are signed out of this server. Demo Corp SSO could not be reached "
                        "to sign you out there too: sign out there, or close your browser. Continue to "
                        "http://127.0.0.1:8765", [CLEARED])
    assert f'<a href="{BACK}?state=s-1" rel="noreferrer">' in result["body"] and not live(session)


def test_a_provider_without_an_end_session_endpoint_leaves_the_person_told(clock: ManualClock, browser: Browser,
                                                                           op: ScriptedProvider) -> None:
    del op.metadata["end_session_endpoint"]
    op.publish()
    session = oidc_session(browser, op, op.id_token())
    assert_page(logout(browser, [("id_token_hint", hint(session))]),
                "You are signed out You are signed out of this server. Demo Corp SSO offers no sign-out to this "
                "server: you may still be signed in there. Sign out there, or close your browser.", [CLEARED])
    assert not live(session)


def test_a_provider_deleted_since_the_sign_in_is_not_visited(clock: ManualClock, browser: Browser,
                                                             op: ScriptedProvider) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    session = oidc_session(browser, op, op.id_token())
    IdentityProviderStore().delete("demo", op.issuer)
    result = logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK)])
    assert (result["statusCode"], headers_of(result)["Location"], headers_of(result)["Set-Cookie"]) == (
        302, BACK, CLEARED)
    assert not live(session)


def test_a_local_session_never_leaves_for_an_upstream(clock: ManualClock, browser: Browser,
                                                      op: ScriptedProvider, server: DocumentServer) -> None:
    session = signed_in(browser)
    result = logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK)])
    assert (result["statusCode"], headers_of(result)["Location"], headers_of(result)["Set-Cookie"]) == (
        302, BACK, CLEARED)
    assert server.requests == []  # not even the provider's discovery


# -- SAML ------------------------------------------------------------------------------------------------------


def left_for_saml(browser: Browser, session: Any, **params: str) -> tuple[str, str]:
    """Sign out of `session`: (the RelayState sent, the LogoutRequest's ID), once the request is checked whole."""
    result = logout(browser, [("id_token_hint", hint(session)), *params.items()])
    query = left_for(result, IDP_SLO_URL)
    assert sorted(query) == ["RelayState", "SAMLRequest"]
    xml = zlib.decompress(base64.b64decode(query["SAMLRequest"][0]), -15).decode()
    request_id = re.search(r' ID="([^"]+)"', xml).group(1)  # type: ignore[union-attr]
    assert xml == (
        '<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" '
        'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '
        f'ID="{request_id}" Version="2.0" IssueInstant="2025-06-15T15:06:40Z" Destination="{IDP_SLO_URL}">'
        f"<saml:Issuer>{ISSUER}/saml/demo</saml:Issuer>"
        '<saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">dana-7f3a</saml:NameID>'
        "<samlp:SessionIndex>_session-1</samlp:SessionIndex></samlp:LogoutRequest>")
    return query["RelayState"][0], request_id


@pytest.mark.parametrize("signed", [False, True])
def test_single_logout_ends_here_then_at_the_idp_and_finishes_when_back(clock: ManualClock, browser: Browser,
                                                                        saml_idp: Any, signed: bool) -> None:
    session = saml_session(browser)
    relay_state, request_id = left_for_saml(browser, session, post_logout_redirect_uri=BACK, state="s-1")
    assert not live(session)
    answer = logout_response(in_response_to=request_id, destination=SLO)
    returned = slo(browser, redirect_query(answer, relay_state, signing_key() if signed else None))
    assert (returned["statusCode"], returned["body"]) == (302, "")
    assert without_request_id(returned) == {"Location": f"{BACK}?state=s-1", "Cache-Control": "no-store",
                                            "Pragma": "no-cache", "Referrer-Policy": "no-referrer",
                                            "Set-Cookie": LOGOUT_COOKIE_CLEARED}


@pytest.mark.parametrize(("answer", "key"), [
    ({"status": RESPONDER}, None),
    ({"in_response_to": "_another-request"}, None),
    ({"issuer": "https://evil.example/saml"}, None),
    ({"destination": "https://sp.example/slo"}, None),
    ({}, "other"),
])
def test_an_answer_that_does_not_hold_leaves_the_person_told(clock: ManualClock, browser: Browser, saml_idp: Any,
                                                             answer: dict[str, str], key: str | None) -> None:
    session = saml_session(browser)
    relay_state, request_id = left_for_saml(browser, session, post_logout_redirect_uri=BACK, state="s-1")
    message = logout_response(**{"in_response_to": request_id, "destination": SLO, **answer})
    returned = slo(browser, redirect_query(message, relay_state, signing_key(key) if key else None))
    assert_page(returned, "You are signed out You are signed out of this server. Demo Corp SSO did not confirm that "
                          "it signed you out: sign out there, or close your browser. Continue to "
                          "http://127.0.0.1:8765", [LOGOUT_COOKIE_CLEARED])
    assert f'<a href="{BACK}?state=s-1" rel="noreferrer">' in returned["body"]


def test_an_answer_with_another_relay_state_finishes_nothing(clock: ManualClock, browser: Browser,
                                                             saml_idp: Any) -> None:
    _, request_id = left_for_saml(browser, saml_session(browser))
    assert_error_page(slo(browser, redirect_query(logout_response(in_response_to=request_id, destination=SLO),
                                                  "another-relay-state-0123")), NOTHING_PENDING)


def test_a_logout_request_from_the_idp_is_refused(clock: ManualClock, browser: Browser, saml_idp: Any) -> None:
    from lxml import etree

    request = etree.fromstring(b'<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r" '
                               b'Version="2.0" IssueInstant="2025-06-15T15:06:40Z"/>')
    assert_error_page(slo(browser, redirect_query(request, "x")),
                      "This server does not take logout requests from identity providers: sign out at the "
                      "application, or at this server.")


def test_an_idp_without_single_logout_leaves_the_person_told(clock: ManualClock, browser: Browser,
                                                             saml_idp: Any) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    IdentityProviderStore().update(saml_idp._replace(saml={**saml_idp.saml, "slo_url": ""}))
    session = saml_session(browser)
    assert_page(logout(browser, [("id_token_hint", hint(session))]),
                "You are signed out You are signed out of this server. Demo Corp SSO offers no sign-out to this "
                "server: you may still be signed in there. Sign out there, or close your browser.", [CLEARED])
    assert not live(session)


def test_a_federated_sign_out_reads_its_idp_once_and_a_local_one_nothing_more(clock: ManualClock,
                                                                              browser: Browser,
                                                                              op: ScriptedProvider) -> None:
    from authgate import caches
    from tests.functional.token_support import dynamodb_calls

    def cost(session: Any) -> dict[str, int]:
        params = [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK)]  # signing reads keys: before
        caches.reset()  # each sign-out in a cold function: the published keys and the IdP's record not yet cached
        with dynamodb_calls() as calls:
            result = logout(browser, params)
        assert result["statusCode"] == 302
        return dict(calls)

    local = cost(signed_in(browser))
    federated = cost(oidc_session(browser, op, op.id_token()))
    # The published keys (the hint's signature), the client (its post-logout URI), the session, and its end
    # (as before upstream sign-out existed); a federated session also its IdP's record, once (cached when warm).
    assert local == {"GetItem": 3, "DeleteItem": 1}
    assert federated == {"GetItem": 4, "DeleteItem": 1}


def test_with_the_stacks_saml_key_the_logout_request_is_signed(clock: ManualClock, browser: Browser,
                                                               saml_idp: Any) -> None:
    """Profiles 4.4.3.1: the LogoutRequest sent through the browser is signed (the HTTP-Redirect binding's signature)."""
    from authgate.federation.saml.redirect_signature import RSA_SHA256, verify

    session = saml_session(browser)
    store_sp_keys(signing_key("sp"))
    query = left_for(logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK)]),
                     IDP_SLO_URL)
    params = {name: values[0] for name, values in query.items()}
    assert (sorted(params), params["SigAlg"]) == (["RelayState", "SAMLRequest", "SigAlg", "Signature"], RSA_SHA256)
    verify(params, "SAMLRequest", (signing_key("sp").cert_pem,))
    assert not live(session)
