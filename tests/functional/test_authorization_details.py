"""Rich Authorization Requests (RFC 9396) at the authorization endpoint, PAR and the token endpoint.

`charge` objects are checked strictly (2, 5), shown on the consent page in words, never remembered
as consent, kept by the code and the refresh family, echoed by the token response (7), carried by
the access token and introspection (9.1, 9.2), narrowed but never widened by a token request (6.2).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.demo import ISSUER, WEB_REDIRECT
from tests.functional.authorization_details_support import GRANTED, ORDER, code_with, details
from tests.functional.authorize_support import Browser, page_of, redirect_of, web_params
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    body_of,
    claims_of,
    headers_of,
    push,
)

INVALID = "invalid_authorization_details"


# ------------------------------------------------------------------ the authorization request


def test_the_consent_page_shows_a_charge_in_words(browser: Browser) -> None:
    page = page_of(browser.get(web_params(authorization_details=details(
        {**ORDER, "description": "Order <b>1042</b>"}))))
    assert page.status == 200
    assert "charge up to 12.50 USD, once — 'Order <b>1042</b>'" in page.text()
    assert "&lt;b&gt;1042&lt;/b&gt;" in page.body and "<b>1042" not in page.body
    assert '"amount"' not in page.body and "&quot;amount&quot;" not in page.body  # never raw JSON


@pytest.mark.parametrize(("entry", "shown"), [
    ({"type": "charge", "amount": 99, "currency": "eur", "max_charges": 2}, "charge up to 0.99 EUR, twice"),
    ({"type": "charge", "amount": 100000, "currency": "usd", "max_charges": 5}, "charge up to 1000.00 USD, up to 5 times"),
])
def test_amounts_are_shown_in_major_units(browser: Browser, entry: dict[str, Any], shown: str) -> None:
    page = page_of(browser.get(web_params(authorization_details=details(entry))))
    assert shown in page.text()


@pytest.mark.parametrize(("raw", "description"), [
    ("{}", "authorization_details must be a non-empty JSON array of objects (RFC 9396 2)."),
    ("[]", "authorization_details must be a non-empty JSON array of objects (RFC 9396 2)."),
    ("[1]", "authorization_details[0] is not a JSON object (RFC 9396 2)."),
    ('[{"amount": 1}]', "authorization_details[0] has no type: every object names its type (RFC 9396 2)."),
    ('[{"type": "charge", "type": "charge"}]', "authorization_details is not strict JSON: duplicate member 'type'."),
    (details({"type": "payment_initiation"}),
     ("authorization_details[0].type 'payment_initiation' is not a type the requested resource accepts (the charges "
     "API's is charge).")),
    (details({**ORDER, "amount": 0}), "authorization_details[0].amount must be an integer from 1 to 99999999."),
    (details({**ORDER, "amount": "1250"}), "authorization_details[0].amount must be an integer from 1 to 99999999."),
    (details({**ORDER, "amount": True}), "authorization_details[0].amount must be an integer from 1 to 99999999."),
    (details({**ORDER, "currency": "USD"}),
     "authorization_details[0].currency must be a lower-case ISO 4217 code, such as usd."),
    (details({**ORDER, "currency": "gbp"}), "authorization_details[0].currency gbp is not enabled for this account."),
    (details({**ORDER, "max_charges": 101}), "authorization_details[0].max_charges must be an integer from 1 to 100."),
    (details({**ORDER, "actions": ["refund"]}), "authorization_details[0].actions may only hold create."),
    (details({**ORDER, "locations": ["https://evil.example/charges"]}),
     f"authorization_details[0].locations may only name the charges API, {ISSUER}/charges."),
    (details({**ORDER, "payee": "x"}), "authorization_details[0].payee is not a member of a charge."),
    (details(ORDER, ORDER), ("authorization_details holds more than one charge object: ask for one payment (its "
                            "max_charges says how many charges) per authorization.")),
    ("[" + ",".join(['{"type":"charge"}'] * 9) + "]", "authorization_details holds more than 8 objects."),
    ("[" + " " * 8192 + "]", "authorization_details is longer than 8192 characters."),
])
def test_a_bad_request_is_redirected_with_invalid_authorization_details(browser: Browser, raw: str,
                                                                        description: str) -> None:
    result = browser.get(web_params(authorization_details=raw))
    redirect = redirect_of(result)
    assert (result["statusCode"], redirect.base, redirect.params) == (302, WEB_REDIRECT, {
        "error": [INVALID], "error_description": [description], "state": ["xyz-state"], "iss": [ISSUER]})
    assert headers_of(result)["Cache-Control"] == "no-store"


def test_locations_naming_the_charges_api_are_accepted(browser: Browser) -> None:
    page = page_of(browser.get(web_params(authorization_details=details({**ORDER, "locations": [f"{ISSUER}/charges/"]}))))
    assert page.status == 200


def test_par_refuses_bad_details_at_push_time(tokens: TokenClient) -> None:
    result = push(tokens, web_params(authorization_details=details({"type": "charge", "amount": 5})))
    assert_error(result, 400, INVALID, "authorization_details[0].currency must be a lower-case ISO 4217 code, "
                                       "such as usd.")


@pytest.mark.slow
def test_details_pushed_and_approved_reach_the_token(tokens: TokenClient, browser: Browser) -> None:
    """PAR (RFC 9126) + RAR: the pushed details are shown, approved, and the token response echoes them (7)."""
    pushed = body_of(push(tokens, web_params(authorization_details=details(ORDER))))
    page = page_of(browser.get([("client_id", "demo-web"), ("request_uri", pushed["request_uri"])]))
    assert "charge up to 12.50 USD, once — 'Order 1042'" in page.text()
    code = redirect_of(browser.submit(page)).one("code")
    issued = body_of(tokens.exchange(code))
    assert issued["authorization_details"] == [GRANTED]
    assert claims_of(issued["access_token"])["authorization_details"] == [GRANTED]


def test_details_are_never_remembered_as_consent(browser: Browser) -> None:
    """Signed in, scopes approved before: a plain request gets its code at once, one with details is asked again
    (each payment is asked), and prompt=none cannot skip that."""
    from authgate import clock
    from authgate.stores.consents import ConsentStore
    from authgate.stores.sessions import SessionStore

    alice = "usr_demoalice0000000000000"
    secret, _ = SessionStore().create(tenant_id="demo", user_id=alice, username="alice", acr="password",
                                      amr=("pwd",), auth_time=clock.seconds(), generation=0)
    browser.get(web_params())  # the browser's binding cookie
    browser.cookie = f"{browser.cookie}; authgate_session={secret}"
    ConsentStore().remember("demo", alice, "demo-web", ("openid", "charges:read", "charges:write"), None)
    assert redirect_of(browser.get(web_params())).one("code")  # remembered: no page
    again = page_of(browser.get(web_params(authorization_details=details(ORDER))))
    assert again.status == 200 and "charge up to 12.50 USD, once" in again.text()
    assert "Signed in as alice ." in again.text()
    none = redirect_of(browser.get(web_params(authorization_details=details(ORDER), prompt="none",
                                              scope="openid charges:read charges:write")))
    assert none.params["error"] == ["consent_required"]


# ------------------------------------------------------------------ the token endpoint


def test_the_token_response_and_the_access_token_carry_the_granted_details(tokens: TokenClient) -> None:
    result = tokens.exchange(code_with(GRANTED))
    issued = body_of(result)
    assert result["statusCode"] == 200
    assert set(issued) == {"access_token", "token_type", "expires_in", "scope", "refresh_token",
                           "authorization_details"}
    assert issued["authorization_details"] == [GRANTED]
    assert claims_of(issued["access_token"])["authorization_details"] == [GRANTED]
    introspected = body_of(tokens.introspect(issued["access_token"]))
    assert (introspected["active"], introspected["authorization_details"]) == (True, [GRANTED])
    refresh = body_of(tokens.introspect(issued["refresh_token"], hint="refresh_token"))
    assert refresh["authorization_details"] == [GRANTED]


def test_a_code_without_details_gives_tokens_without_them(tokens: TokenClient) -> None:
    issued = body_of(tokens.exchange(code_with()))
    assert "authorization_details" not in issued
    assert "authorization_details" not in claims_of(issued["access_token"])
    assert "authorization_details" not in body_of(tokens.introspect(issued["access_token"]))


def test_a_refresh_keeps_the_details(tokens: TokenClient) -> None:
    issued = body_of(tokens.exchange(code_with({**GRANTED, "max_charges": 2})))
    refreshed = body_of(tokens.refresh(issued["refresh_token"]))
    assert refreshed["authorization_details"] == [{**GRANTED, "max_charges": 2}]
    assert claims_of(refreshed["access_token"])["authorization_details"] == [{**GRANTED, "max_charges": 2}]


def _refresh_with(tokens: TokenClient, refresh_token: str, raw: str) -> dict[str, Any]:
    return tokens.as_client("demo-web", [("grant_type", "refresh_token"), ("refresh_token", refresh_token),
                                         ("authorization_details", raw)])


@pytest.mark.parametrize("wider", [
    {**ORDER, "amount": 1251},
    {**ORDER, "currency": "eur"},
    {**ORDER, "max_charges": 3},
    {**ORDER, "description": "Order 1043"},
])
def test_a_refresh_cannot_widen_the_details(tokens: TokenClient, wider: dict[str, Any]) -> None:
    issued = body_of(tokens.exchange(code_with({**GRANTED, "max_charges": 2})))
    result = _refresh_with(tokens, issued["refresh_token"], details(wider))
    assert_error(result, 400, INVALID, "authorization_details[0] is not within the details of this grant "
                                       "(RFC 9396 6.2: a token request may only narrow them).")


def test_a_token_request_may_narrow_the_details(tokens: TokenClient) -> None:
    issued = body_of(tokens.exchange(code_with({**GRANTED, "max_charges": 2})))
    narrower = {**ORDER, "amount": 500}
    refreshed = body_of(_refresh_with(tokens, issued["refresh_token"], details(narrower)))
    assert refreshed["authorization_details"] == [{**GRANTED, "amount": 500}]
    # The family keeps what was approved: the next refresh without the parameter gets it all back.
    again = body_of(tokens.refresh(refreshed["refresh_token"]))
    assert again["authorization_details"] == [{**GRANTED, "max_charges": 2}]


def test_the_code_exchange_may_narrow_but_not_widen(tokens: TokenClient) -> None:
    fields = [("grant_type", "authorization_code"), ("redirect_uri", WEB_REDIRECT),
              ("code_verifier", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")]
    narrowed = tokens.as_client("demo-web", [*fields, ("code", code_with(GRANTED)),
                                             ("authorization_details", details({**ORDER, "amount": 1000}))])
    assert body_of(narrowed)["authorization_details"] == [{**GRANTED, "amount": 1000}]
    widened = tokens.as_client("demo-web", [*fields, ("code", code_with()),
                                            ("authorization_details", details(ORDER))])
    assert_error(widened, 400, INVALID, "This grant has no authorization_details: a token request may only narrow "
                                        "the details the user approved (RFC 9396 6.2).")


def test_discovery_lists_the_charge_type(invoke: Any) -> None:
    from authgate_cli.local.events import HttpRequest, build_event

    for path in ("/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/charges"):
        request = HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")])
        result = invoke("jwks", build_event(request, resource=path, path_params=None))
        assert json.loads(result["body"])["authorization_details_types_supported"] == ["charge"]


# ------------------------------------------------------------------ a registered resource's own type

FILES = {"type": "object", "required": ["type", "folder"], "additionalProperties": False,
         "properties": {"type": {"const": "file_access"}, "folder": {"type": "string", "maxLength": 40},
                        "actions": {"type": "array", "items": {"enum": ["read", "write"]}}}}


def _files_resource() -> str:
    from authgate import caches
    from authgate.stores.resources import ResourceStore
    from tests.functional.resource_support import MCP, register

    register(granted_to=())
    store = ResourceStore()
    resource = store.get(MCP)
    assert resource is not None
    store.update(resource._replace(authorization_details_types=(("file_access", json.dumps(FILES)),)))
    caches.reset()
    return MCP


def test_a_registered_type_is_shown_by_its_fields(browser: Browser) -> None:
    uri = _files_resource()
    entry = {"type": "file_access", "folder": "Invoices <2026>", "actions": ["read"]}
    page = page_of(browser.get(web_params(resource=uri, scope="mcp:read", authorization_details=details(entry))))
    assert page.status == 200, page.body[:400]
    assert "file_access — actions: read; folder: Invoices <2026>" in page.text()
    assert "Invoices &lt;2026&gt;" in page.body


@pytest.mark.parametrize(("entry", "description"), [
    ({"type": "file_access"}, ("authorization_details[0] does not match the schema of type 'file_access': "
                              "'folder' is a required property")),
    ({"type": "file_access", "folder": "x", "actions": ["delete"]},
     ("authorization_details[0].actions[0] does not match the schema of type 'file_access': 'delete' is not one of "
     "['read', 'write']")),
    ({"type": "file_access", "folder": "x", "owner": "bob"},
     ("authorization_details[0] does not match the schema of type 'file_access': Additional properties are not "
     "allowed ('owner' was unexpected)")),
    ({"type": "charge", "amount": 1, "currency": "usd"},
     ("authorization_details[0].type 'charge' is not a type the requested resource accepts (authgate resources "
     "update --authorization-details-type).")),
])
def test_an_object_its_schema_refuses_is_invalid(browser: Browser, entry: dict[str, Any], description: str) -> None:
    uri = _files_resource()
    redirect = redirect_of(browser.get(web_params(resource=uri, scope="mcp:read", authorization_details=details(entry))))
    assert redirect.params == {"error": [INVALID], "error_description": [description.replace('"', "'")],
                               "state": ["xyz-state"], "iss": [ISSUER]}


def test_a_charge_type_on_the_charges_api_is_not_a_registered_one(browser: Browser) -> None:
    _files_resource()
    redirect = redirect_of(browser.get(web_params(authorization_details=details({"type": "file_access",
                                                                                  "folder": "x"}))))
    assert redirect.params["error_description"] == [
        ("authorization_details[0].type 'file_access' is not a type the requested resource accepts (the charges "
        "API's is charge).")]


def test_a_grant_no_person_approved_details_for_refuses_them(tokens: TokenClient) -> None:
    """Never a token wider than asked: details client_credentials cannot honour are refused, not ignored."""
    result = tokens.as_client("demo-service", [("grant_type", "client_credentials"),
                                               ("authorization_details", details(ORDER))])
    assert_error(result, 400, INVALID, "The client_credentials grant takes no authorization_details here: a person "
                                       "approves them at the authorization endpoint.")
