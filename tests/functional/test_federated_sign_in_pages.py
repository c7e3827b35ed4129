"""Sign-in through a tenant's identity provider wherever a person signs in (docs/federation.md): the device
verification page, the account page and the CIBA approval page offer the same buttons and home-realm discovery as
the authorization endpoint, through the same interaction steps."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock, seconds
from tests.document_server import DocumentServer
from tests.functional.account_support import ACCOUNT
from tests.functional.authorize_support import Browser, Message, page_of
from tests.functional.ciba_support import (
    BOB_ID,
    ApprovalBrowser,
    assert_tokens,
    delivered,
    one_time_code,
    start,
)
from tests.functional.ciba_support import poll as poll_ciba
from tests.functional.ciba_support import started as ciba_started
from tests.functional.device_support import DevicePage, authorize_device, poll, started
from tests.functional.token_support import TokenClient, body_of, claims_of
from tests.functional.upstream_support import (
    answer,
    back_to_flow,
    offer,
    oidc_answer,
    onward_query,
    post,
)
from tests.upstream_oidc import ScriptedProvider

DEVICE = "/oauth/device"
APPROVE = "/oauth/approve"


@pytest.mark.usefixtures("tv")
def test_the_device_page_offers_the_idp_and_its_sign_in_approves_the_device(
        tokens: TokenClient, browser: Browser, provider: ScriptedProvider, clock: ManualClock) -> None:
    offer(provider, create_users=True)
    start = started(authorize_device(tokens, scope="charges:read openid"))
    device = DevicePage(browser)
    page = device.enter(start["user_code"])
    assert [b.get("value") for b in page.buttons if b.get("name") == "upstream"] == ["idp-a"]
    onward = post(browser, [*page.hidden().items(), ("upstream", "idp-a")], path=DEVICE)
    now = seconds()  # the ID token's times on the stack's clock
    back = answer(browser, oidc_answer(provider, onward_query(onward), iat=now, exp=now + 300))
    done = page_of(back_to_flow(browser, back, path=DEVICE))
    assert done.status == 200 and "You approved the request" in done.text(), done.text()
    clock.advance(5)
    result = poll(tokens, start["device_code"])
    assert result["statusCode"] == 200, result["body"]
    identity = claims_of(body_of(result)["id_token"])
    assert (identity["acr"], identity["amr"]) == ("password", ["fed"])


def test_the_account_page_sends_an_email_its_idp_claims_there_and_signs_the_person_in(
        browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider, create_users=True, domains=("democorp.example",))
    start = page_of(browser.get_raw("", path=ACCOUNT))
    browser.keep_cookies({"multiValueHeaders": {"Set-Cookie": [start.headers.get("Set-Cookie", "")]}})
    hidden = {k: v for k, v in start.hidden().items() if k in ("nonce", "csrf")}
    onward = post(browser, [*hidden.items(), ("action", "sign_in"), ("tenant", "demo"),
                            ("username", "carol@democorp.example"), ("password", "")], path=ACCOUNT)
    query = onward_query(onward)
    assert query["login_hint"] == "carol@democorp.example"
    signed = page_of(back_to_flow(browser, answer(browser, oidc_answer(provider, query)), path=ACCOUNT))
    assert signed.status == 200
    assert "Signed in as carol" in signed.text(), signed.text()


def test_the_account_page_with_a_wrong_organisation_answers_as_before(browser: Browser,
                                                                     provider: ScriptedProvider) -> None:
    offer(provider, create_users=True, domains=("democorp.example",))
    start = page_of(browser.get_raw("", path=ACCOUNT))
    browser.keep_cookies({"multiValueHeaders": {"Set-Cookie": [start.headers.get("Set-Cookie", "")]}})
    hidden = {k: v for k, v in start.hidden().items() if k in ("nonce", "csrf")}
    again = page_of(post(browser, [*hidden.items(), ("action", "sign_in"), ("tenant", "nope"),
                                   ("username", "carol@democorp.example"), ("password", "")], path=ACCOUNT))
    assert again.status == 200
    assert [m.text for m in again.messages if not m.hidden] == [
        "Enter your username and password."]


@pytest.mark.usefixtures("tv")
def test_a_tenant_without_idps_shows_no_button_on_the_device_page(tokens: TokenClient, browser: Browser) -> None:
    page = DevicePage(browser).enter(started(authorize_device(tokens, scope="charges:read"))["user_code"])
    assert [b for b in page.buttons if b.get("name") == "upstream"] == []


@pytest.mark.slow
def test_the_ciba_approval_page_signs_bob_in_at_his_idp_then_his_code_then_he_approves(
        hook: DocumentServer, approver: ApprovalBrowser, tokens: TokenClient, clock: ManualClock,
        provider: ScriptedProvider) -> None:
    from authgate.federation import identities
    from authgate.federation.upstream import UpstreamIdentity

    idp = offer(provider)
    identities.link("demo", BOB_ID, idp, UpstreamIdentity("demo", provider.issuer, "bob-upstream"), username="bob")
    auth_req_id = ciba_started(start(tokens, binding_message="Order 1042"))
    page = page_of(approver.open(delivered(hook)[0]["approval_url"]))
    assert [b.get("value") for b in page.buttons if b.get("name") == "upstream"] == ["idp-a"]
    onward = post(approver, [*page.hidden().items(), ("upstream", "idp-a")], path=APPROVE)
    now = seconds()
    back = answer(approver, oidc_answer(provider, onward_query(onward), sub="bob-upstream", iat=now, exp=now + 300))
    # The IdP's word is `password` here: the approval needs mfa, so bob's own code comes next (step_up local).
    factor = page_of(back_to_flow(approver, back, path=APPROVE))
    assert any(i.get("name") == "code" for i in factor.inputs), factor.text()
    decision = page_of(post(approver, [*factor.hidden().items(), ("code", one_time_code(int(clock())))],
                            path=APPROVE))
    assert "Signed in as bob" in decision.text(), decision.text()
    done = page_of(post(approver, [*decision.hidden().items(), ("decision", "approve")], path=APPROVE))
    assert done.messages == [Message("status", "message success",
                                     "Approved. The application can go on; you may close this page.")]
    body = assert_tokens(poll_ciba(tokens, auth_req_id))
    assert claims_of(body["access_token"])["acr"] == "mfa"
    assert sorted(claims_of(body["id_token"])["amr"]) == ["fed", "mfa", "otp"]
