"""Sign-in through a tenant's SAML 2.0 identity provider at the authorization endpoint (docs/federation.md): the
AuthnRequest on the way there, the signed Response at the tenant's Assertion Consumer Service, and the ACS's own
refusals (an answer at another tenant's ACS, an OpenID Connect sign-in's handle, a replay). The assertions are
made and signed here (tests/saml_support.py); SimpleSAMLphp signs real ones in the browser e2e tests."""

from __future__ import annotations

import base64
import zlib
from typing import Any

from lxml import etree

from authgate.clock import ManualClock
from tests.demo import ISSUER, WEB_REDIRECT
from tests.functional.authorize_support import Browser, assert_error_page, redirect_of
from tests.functional.token_support import TokenClient, body_of, claims_of
from tests.functional.upstream_support import (
    answer,
    back_to_flow,
    choose,
    offer,
    oidc_answer,
    post,
    sign_in_page,
)
from tests.saml_support import (
    assertion,
    encoded,
    response,
    saml_record,
    sign,
    signing_key,
    store_sp_keys,
)
from tests.upstream_oidc import ScriptedProvider

SP = f"{ISSUER}/saml/demo"
ACS = f"{SP}/acs"
IDP = "https://idp.democorp.example/saml"
STARTED_ELSEWHERE = ("This sign-in is unknown, was already completed, expired, or was started in another browser. Go "
                     "back to the application and start again.")


def offer_saml(create_users: bool = True) -> None:
    from authgate import caches
    from authgate.federation.saml.vocabulary import PERSISTENT
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = saml_record("demo", {"entity_id": IDP, "sso_url": "https://idp.democorp.example/sso", "slo_url": "",
                               "certificates": [signing_key().cert_pem], "name_id_format": PERSISTENT})
    IdentityProviderStore().create(idp._replace(create_users=create_users))
    caches.reset()


def request_id(query: dict[str, str]) -> str:
    """The ID of the AuthnRequest the HTTP-Redirect binding carries (deflated, base64)."""
    xml = zlib.decompress(base64.b64decode(query["SAMLRequest"]), -15)
    return str(etree.fromstring(xml).get("ID"))


def saml_answer(query: dict[str, str], now: int, **fields: Any) -> dict[str, str]:
    signed = sign(assertion(recipient=ACS, audience=SP, in_response_to=request_id(query), now=now, **fields))
    return {"SAMLResponse": encoded(response(signed, destination=ACS, in_response_to=request_id(query), now=now)),
            "RelayState": query["RelayState"]}


def test_a_saml_idp_signs_a_new_person_in_and_the_client_gets_its_code(browser: Browser, clock: ManualClock,
                                                                        invoke: Any) -> None:
    offer_saml()
    _onward, query = choose(browser, sign_in_page(browser), "democorp")
    assert set(query) == {"SAMLRequest", "RelayState"}
    back = answer(browser, saml_answer(query, int(clock())), method="POST", path="/saml/demo/acs", tenant="demo")
    result = back_to_flow(browser, back)
    redirect = redirect_of(result)
    assert redirect.base == WEB_REDIRECT
    access = claims_of(body_of(TokenClient(invoke).exchange(redirect.one("code")))["access_token"])
    assert access["sub"].startswith("usr_")
    assert access["acr"] == "password"


def test_an_answer_at_another_tenants_acs_is_refused(browser: Browser, clock: ManualClock) -> None:
    offer_saml()
    _onward, query = choose(browser, sign_in_page(browser), "democorp")
    refused = answer(browser, saml_answer(query, int(clock())), method="POST", path="/saml/acme/acs", tenant="acme")
    assert_error_page(refused, "upstream_sign_in_failed", STARTED_ELSEWHERE)


def test_a_replayed_response_is_refused(browser: Browser, clock: ManualClock) -> None:
    offer_saml()
    _onward, query = choose(browser, sign_in_page(browser), "democorp")
    params = saml_answer(query, int(clock()))
    assert answer(browser, params, method="POST", path="/saml/demo/acs", tenant="demo")["statusCode"] == 200
    assert_error_page(answer(browser, params, method="POST", path="/saml/demo/acs", tenant="demo"),
                      "upstream_sign_in_failed", STARTED_ELSEWHERE)


def test_an_openid_connect_sign_ins_handle_at_the_acs_is_refused(browser: Browser, provider: ScriptedProvider,
                                                                 clock: ManualClock) -> None:
    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    params = {"SAMLResponse": "PHg+", "RelayState": oidc_answer(provider, query)["state"]}
    assert_error_page(answer(browser, params, method="POST", path="/saml/demo/acs", tenant="demo"),
                      "upstream_sign_in_failed", STARTED_ELSEWHERE)
    assert provider.token_requests() == []


def test_prompt_login_is_force_authn_and_a_step_up_asks_the_authn_context(browser: Browser,
                                                                         clock: ManualClock) -> None:
    from authgate import caches
    from authgate.stores.identity_providers import IdentityProviderStore

    offer_saml()
    store = IdentityProviderStore()
    idp = store.get("demo", IDP)
    assert idp is not None
    store.update(idp._replace(trust_mfa=True, mfa_values=("urn:democorp:mfa",), step_up="upstream"))
    caches.reset()
    page = sign_in_page(browser, scope="openid charges:read", prompt="login", acr_values="mfa")
    _onward, query = choose(browser, page, "democorp")
    request = etree.fromstring(zlib.decompress(base64.b64decode(query["SAMLRequest"]), -15))
    assert request.get("ForceAuthn") == "true"
    assert request.find("{urn:oasis:names:tc:SAML:2.0:protocol}RequestedAuthnContext") is None
    # The IdP's answer is a password sign-in: the step-up goes back asking for its second factor.
    again = back_to_flow(browser, answer(browser, saml_answer(query, int(clock())), method="POST",
                                         path="/saml/demo/acs", tenant="demo"))
    from tests.functional.upstream_support import onward_query

    asked = etree.fromstring(zlib.decompress(base64.b64decode(onward_query(again)["SAMLRequest"]), -15))
    context = asked.find("{urn:oasis:names:tc:SAML:2.0:protocol}RequestedAuthnContext")
    assert context is not None
    assert [c.text for c in context] == ["urn:democorp:mfa"]


def test_with_the_stacks_saml_key_the_redirect_to_the_idp_is_signed(browser: Browser, clock: ManualClock,
                                                                     invoke: Any) -> None:
    from authgate.federation.saml.redirect_signature import RSA_SHA256, verify

    store_sp_keys(signing_key("sp"))
    offer_saml()
    onward, query = choose(browser, sign_in_page(browser), "democorp")
    assert (sorted(query), query["SigAlg"]) == (["RelayState", "SAMLRequest", "SigAlg", "Signature"], RSA_SHA256)
    verify(query, "SAMLRequest", (signing_key("sp").cert_pem,))
    assert onward["body"].count("&amp;Signature=") == 2  # the meta refresh and the link
    back = answer(browser, saml_answer(query, int(clock())), method="POST", path="/saml/demo/acs", tenant="demo")
    assert redirect_of(back_to_flow(browser, back)).base == WEB_REDIRECT


def test_an_idp_that_wants_signed_requests_is_not_offered_a_request_while_the_stack_has_no_key(
        browser: Browser) -> None:
    from authgate import caches
    from authgate.stores.identity_providers import IdentityProviderStore

    offer_saml()
    store = IdentityProviderStore()
    idp = store.get("demo", IDP)
    assert idp is not None and idp.saml is not None
    store.update(idp._replace(saml={**idp.saml, "want_requests_signed": True}))
    caches.reset()
    result = post(browser, [*sign_in_page(browser).hidden().items(), ("upstream", "democorp")])
    assert (result["statusCode"], result["multiValueHeaders"].get("Location")) == (200, None)
    assert "That sign-in option is not available any more. Sign in another way, or start again." in result["body"]
    assert "SAMLRequest" not in result["body"]
