"""The device authorization grant (RFC 8628) through the token and authorize functions: the device
authorization response (3.2), the verification page (3.3, 5.1, 5.4) and the token endpoint's polls (3.4, 3.5)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.demo import ALICE_ID, BOB_ID, SECRETS
from tests.functional.authorize_support import (
    PAGE_HEADERS,
    Message,
    Page,
    page_of,
    put_client,
)
from tests.functional.device_support import (
    DEVICE_GRANT,
    DevicePage,
    authorize_device,
    poll,
    started,
)
from tests.functional.passkey_support import answered, enrolled, options_of
from tests.functional.person_events_support import ALICE, Events, by_person, trail
from tests.functional.token_support import (
    OK_HEADERS,
    TokenClient,
    assert_error,
    basic,
    body_of,
    claims_of,
    headers_of,
)


@pytest.mark.slow
@pytest.mark.usefixtures("tv")
def test_the_whole_flow_issues_tokens_once(tokens: TokenClient, device_page: DevicePage,
                                           clock: ManualClock, audit_events: Events) -> None:
    start = started(authorize_device(tokens, scope="charges:read openid offline_access"))
    assert_error(poll(tokens, start["device_code"]), 400, "authorization_pending",
                 "The user has not yet approved or denied this request; poll again after the interval "
                 "(RFC 8628 3.5).")
    page = device_page.enter(start["user_code"].lower().replace("-", ""))
    assert (page.status, {k: page.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    text = page.text()
    assert "Living-room TV is asking for access to" in text
    assert f"Approve only if you started this on a device that is in front of you right now and it shows the " \
           f"code {start['user_code']} ." in text
    assert page.hidden()["user_code"] == start["user_code"]
    done = device_page.decide(page, "approve", "alice", "alice-password")
    assert done.status == 200 and "You approved the request" in done.text()
    assert "authgate_session=" in done.headers["Set-Cookie"]

    clock.advance(5)
    result = poll(tokens, start["device_code"])
    body = body_of(result)
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    assert (result["statusCode"], headers) == (200, OK_HEADERS)
    assert set(body) == {"access_token", "token_type", "expires_in", "scope", "refresh_token", "id_token"}
    assert (body["token_type"], body["scope"]) == ("Bearer", "charges:read openid offline_access")
    access = claims_of(body["access_token"])
    assert (access["client_id"], access["tenant"], access["acr"]) == ("demo-tv", "demo", "password")
    identity = claims_of(body["id_token"])
    assert (identity["aud"], identity["sub"], identity["acr"]) == ("demo-tv", "usr_demoalice0000000000000",
                                                                   "password")
    assert identity["sid"] and identity["auth_time"] == access["auth_time"]

    clock.advance(5)
    assert_error(poll(tokens, start["device_code"]), 400, "invalid_grant",
                 "The device_code is unknown, was issued to another client, or has been used already.")
    signed, opened, approved, issued = trail(audit_events)
    assert signed == by_person("signin.succeeded", ALICE, "alice", method="password", acr="password", amr=["pwd"],
                               client_id="demo-tv")
    assert (opened["action"], opened["details"]["sid"]) == ("session.started", identity["sid"])
    assert approved == by_person("approval.approved", ALICE, "alice", kind="device", client_id="demo-tv",
                                 scopes=["charges:read", "openid", "offline_access"])
    assert (issued["action"], issued["details"]["jti"]) == ("token.issued", access["jti"])
    assert start["user_code"] not in json.dumps(audit_events()) and start["device_code"] not in json.dumps(
        audit_events())


@pytest.mark.slow
@pytest.mark.usefixtures("tv")
def test_a_signed_in_browser_approves_without_the_password(tokens: TokenClient, device_page: DevicePage,
                                                           clock: ManualClock) -> None:
    first = started(authorize_device(tokens, scope="charges:read"))
    device_page.decide(device_page.enter(first["user_code"]), "approve", "alice", "alice-password")
    second = started(authorize_device(tokens, scope="charges:read"))
    page = device_page.enter(second["user_code"])
    assert "Signed in as alice ." in page.text()
    assert not any(i.get("name") == "password" for i in page.inputs)
    assert "You approved the request" in device_page.decide(page, "approve").text()
    assert poll(tokens, second["device_code"])["statusCode"] == 200


@pytest.mark.usefixtures("tv")
def test_polling_too_fast_is_slow_down_and_the_longer_interval_holds(tokens: TokenClient,
                                                                     clock: ManualClock) -> None:
    start = started(authorize_device(tokens, scope="charges:read"))
    device_code = start["device_code"]
    assert body_of(poll(tokens, device_code))["error"] == "authorization_pending"
    clock.advance(2)
    assert_error(poll(tokens, device_code), 400, "slow_down",
                 "Polling too fast: wait at least 10 seconds between requests from now on (RFC 8628 3.5).")
    clock.advance(6)  # 5 s would have done before the slow_down; 10 s are needed now
    assert body_of(poll(tokens, device_code))["error"] == "slow_down"
    clock.advance(15)
    assert body_of(poll(tokens, device_code))["error"] == "authorization_pending"


@pytest.mark.usefixtures("tv")
def test_a_denied_request_is_access_denied(tokens: TokenClient, device_page: DevicePage,
                                           clock: ManualClock, audit_events: Events) -> None:
    start = started(authorize_device(tokens, scope="charges:read"))
    done = device_page.decide(device_page.enter(start["user_code"]), "deny")
    assert done.messages == [Message("status", "message success", "You denied the request. You can close this "
                                                                  "page; the device will be told.")]
    assert_error(poll(tokens, start["device_code"]), 400, "access_denied",
                 "The user denied the request (RFC 8628 3.5).", code="device_access_denied")
    # Denied without a sign-in: nobody is named.
    assert trail(audit_events) == [by_person("approval.denied", "unknown", None, kind="device", client_id="demo-tv")]


@pytest.mark.usefixtures("tv")
def test_an_expired_device_code_is_expired_token(tokens: TokenClient, device_page: DevicePage,
                                                 clock: ManualClock) -> None:
    start = started(authorize_device(tokens, scope="charges:read"))
    clock.advance(600)
    assert_error(poll(tokens, start["device_code"]), 400, "expired_token",
                 "The device_code has expired: start a new device authorization request (RFC 8628 3.5).")
    page = device_page.enter(start["user_code"])
    assert "That code is not valid." in page.text()


@pytest.mark.usefixtures("tv")
def test_unknown_malformed_and_used_codes_read_alike(tokens: TokenClient, device_page: DevicePage,
                                                     clock: ManualClock) -> None:
    start = started(authorize_device(tokens, scope="charges:read"))
    device_page.decide(device_page.enter(start["user_code"]), "deny")
    pages = [device_page.enter(code) for code in ("BCDFG-HJKLM", "AEIOU-12345", start["user_code"], "")]
    assert {p.status for p in pages} == {200}
    assert len({re.sub(r'value="[^"]*"', "", p.body) for p in pages}) == 1


@pytest.mark.usefixtures("tv")
def test_user_code_guesses_are_rate_limited_per_address(device_page: DevicePage,
                                                         clock: ManualClock) -> None:
    for _ in range(30):
        assert device_page.enter("BCDFG-HJKLM", source_ip="198.51.100.7").status == 200
    refused = device_page.enter("BCDFG-HJKLM", source_ip="198.51.100.7")
    assert refused.status == 429
    assert "Too many codes were tried; retry after" in refused.text()
    assert refused.headers["Retry-After"].isdigit()
    assert device_page.enter("BCDFG-HJKLM", source_ip="198.51.100.8").status == 200


@pytest.mark.usefixtures("tv")
def test_a_device_code_of_another_client_is_invalid_grant(tokens: TokenClient, clock: ManualClock) -> None:
    put_client(client_id="demo-tv2", client_type="public", secret_hash=None, grant_types=(DEVICE_GRANT,))
    start = started(authorize_device(tokens, scope="charges:read"))
    assert_error(poll(tokens, start["device_code"], client_id="demo-tv2"), 400, "invalid_grant",
                 "The device_code is unknown, was issued to another client, or has been used already.")
    assert_error(poll(tokens, "not-a-device-code"), 400, "invalid_grant",
                 "The device_code is unknown, was issued to another client, or has been used already.")


@pytest.mark.usefixtures("tv")
def test_a_client_without_the_grant_is_refused(tokens: TokenClient, clock: ManualClock) -> None:
    result = tokens.post([("scope", "charges:read")], path="/oauth/device_authorization",
                         auth=basic("demo-web", SECRETS["demo-web"]))
    assert_error(result, 400, "unauthorized_client",
                 "This client may not use the device authorization grant (RFC 8628 3.1).")
    assert_error(poll(tokens, "BCDFGHJKLM.x", client_id="demo-spa"), 400, "unauthorized_client",
                 f"This client may not use the {DEVICE_GRANT} grant.")


@pytest.mark.usefixtures("tv")
def test_scopes_are_checked_when_the_device_asks(tokens: TokenClient, clock: ManualClock) -> None:
    assert_error(authorize_device(tokens, scope="charges:refund"), 400, "invalid_scope",
                 "The client is not allowed the scope charges:refund.")


@pytest.mark.usefixtures("tv")
def test_a_public_devices_pending_poll_is_one_write(tokens: TokenClient, clock: ManualClock) -> None:
    """Issue 29's budget: the device code's one conditional UpdateItem, before the client is read (its 256 random
    bits, issued to this public client, are all the credential it has); an approved poll takes every step."""
    from collections import Counter

    from authgate.aws import dynamodb

    start = started(authorize_device(tokens, scope="charges:read"))
    seen: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        seen[model.name] += 1

    dynamodb().meta.events.register("before-call.dynamodb", count)
    try:
        assert body_of(poll(tokens, start["device_code"]))["error"] == "authorization_pending"
    finally:
        dynamodb().meta.events.unregister("before-call.dynamodb", count)
    assert seen == Counter({"UpdateItem": 1})


def test_a_confidential_devices_poll_authenticates_first(tokens: TokenClient, clock: ManualClock) -> None:
    """A confidential client's device code is never answered before its secret is checked."""
    from authgate.stores.clients import ClientStore

    _, secret = ClientStore().create(client_id="demo-kiosk", tenant_id="demo", grant_types=(DEVICE_GRANT,),
                                     scopes=("charges:read",))
    assert secret is not None
    start = started(tokens.post([("scope", "charges:read")], path="/oauth/device_authorization",
                                auth=basic("demo-kiosk", secret)))
    # Named without its secret (authentication "none"): invalid_client, not authorization_pending.
    assert_error(poll(tokens, start["device_code"], client_id="demo-kiosk"), 401, "invalid_client",
                 "Client authentication failed.", {"WWW-Authenticate": 'Basic realm="oauth"'})
    pending = tokens.post([("grant_type", DEVICE_GRANT), ("device_code", start["device_code"])],
                          auth=basic("demo-kiosk", secret))
    assert body_of(pending)["error"] == "authorization_pending"


# -- a tenant that requires mfa (issue 28): the approval asks for the second factor ---------------------------

BOB_KEY = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
FACTOR_FIELDS = [("action", "hidden"), ("user_code", "hidden"), ("nonce", "hidden"), ("csrf", "hidden"),
                 ("factor_ticket", "hidden"), ("code", "text")]
WRONG_CODE = ("The code is incorrect or was used already, or this account is temporarily locked after repeated "
              "failed attempts. Check it and try again in a moment.")


def require_mfa() -> None:
    from authgate.stores.tenants import TenantStore

    tenants = TenantStore()
    demo = tenants.get("demo")
    assert demo is not None
    tenants.put(demo._replace(require_mfa=True))


def give_code(device_page: DevicePage, page: Page, code: str) -> Page:
    return page_of(device_page._send("POST", fields=[*page.hidden().items(), ("code", code)]))


def device_claims(tokens: TokenClient, device_code: str) -> dict[str, Any]:
    result = poll(tokens, device_code)
    assert result["statusCode"] == 200, result["body"]
    return claims_of(body_of(result)["access_token"])


@pytest.mark.slow
@pytest.mark.usefixtures("tv")
def test_require_mfa_asks_bob_for_his_code_before_approving(tokens: TokenClient, device_page: DevicePage,
                                                            clock: ManualClock) -> None:
    import pyotp

    require_mfa()
    start = started(authorize_device(tokens, scope="charges:read"))
    step = device_page.decide(device_page.enter(start["user_code"]), "approve", "bob", "bob-password")
    assert (step.status, {k: step.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    assert [(i["name"], i["type"]) for i in step.inputs] == FACTOR_FIELDS
    assert step.text() == (f"Second factor Your organisation requires a second factor to approve Living-room TV "
                           f"(code {start['user_code']} ). Enter the six-digit code from your authenticator app, "
                           f"or one of your recovery codes. Code Approve")
    assert "authgate_session=" in step.headers["Set-Cookie"]
    # Nothing is approved on the password alone.
    assert body_of(poll(tokens, start["device_code"]))["error"] == "authorization_pending"

    code = pyotp.TOTP(BOB_KEY).at(int(clock()))
    wrong = give_code(device_page, step, "000000" if code != "000000" else "111111")
    assert [(i["name"], i["type"]) for i in wrong.inputs] == FACTOR_FIELDS
    assert WRONG_CODE in wrong.text()
    done = give_code(device_page, wrong, code)
    assert (done.status, done.text()) == (200, ("Connect a device You approved the request: return to your device, "
                                                "it will be signed in within a few seconds. You can close this page."))
    assert "authgate_session=" in done.headers["Set-Cookie"]
    # The ticket was single use: the session it was bound to is gone (raised under a new secret), so it approves
    # no other request, even with a new code.
    other = started(authorize_device(tokens, scope="charges:read"))
    replayed = {**step.hidden(), "user_code": other["user_code"]}
    again = page_of(device_page._send("POST", fields=[*replayed.items(),
                                                      ("code", pyotp.TOTP(BOB_KEY).at(int(clock()) + 30))]))
    assert "The second-factor step expired or was used already. Choose Approve again." in again.text()
    assert [i["name"] for i in again.inputs] == ["action", "user_code", "nonce", "csrf"]
    clock.advance(5)
    access = device_claims(tokens, start["device_code"])
    assert (access["sub"], access["username"], access["acr"]) == (BOB_ID, "bob", "mfa")


@pytest.mark.slow
@pytest.mark.usefixtures("tv")
def test_require_mfa_makes_alice_enrol_and_shows_her_recovery_codes(tokens: TokenClient, device_page: DevicePage,
                                                                    clock: ManualClock) -> None:
    import pyotp

    from authgate.stores.user_factors import UserFactorStore

    require_mfa()
    start = started(authorize_device(tokens, scope="charges:read"))
    enrol = device_page.decide(device_page.enter(start["user_code"]), "approve", "alice", "alice-password")
    assert enrol.status == 200 and [(i["name"], i["type"]) for i in enrol.inputs] == FACTOR_FIELDS
    assert enrol.text().startswith("Set up a second factor Your organisation requires a second factor to approve "
                                   f"Living-room TV (code {start['user_code']} ). Your organisation requires a "
                                   "second factor. Scan this QR code with an authenticator app")
    found = re.search(r'<code class="totp-secret">([A-Z2-7 ]+)</code>', enrol.body)
    assert found is not None and "<svg" in enrol.body
    secret = found.group(1).replace(" ", "")
    done = give_code(device_page, enrol, pyotp.TOTP(secret).at(int(clock())))
    assert done.status == 200
    assert done.text().startswith("Connect a device You approved the request: return to your device, it will be "
                                  "signed in within a few seconds. You can close this page. Your second factor is "
                                  "set up. Keep these ten recovery codes somewhere safe")
    assert len([word for word in done.text().split(" ") if word.count("-") == 3]) == 10
    factors = UserFactorStore().factors("demo", "alice")
    assert factors is not None and (factors.totp, factors.recovery_codes_left) == (True, 10)
    clock.advance(5)
    assert device_claims(tokens, start["device_code"])["acr"] == "mfa"


@pytest.mark.slow
@pytest.mark.usefixtures("tv")
def test_require_mfa_asks_a_password_session_for_the_factor_too(tokens: TokenClient, device_page: DevicePage,
                                                                clock: ManualClock) -> None:
    first = started(authorize_device(tokens, scope="charges:read"))
    device_page.decide(device_page.enter(first["user_code"]), "approve", "bob", "bob-password")
    require_mfa()
    clock.advance(61)  # the tenant cache's TTL
    second = started(authorize_device(tokens, scope="charges:read"))
    page = device_page.enter(second["user_code"])
    assert "Signed in as bob ." in page.text()
    step = device_page.decide(page, "approve")
    assert [(i["name"], i["type"]) for i in step.inputs] == FACTOR_FIELDS
    assert body_of(poll(tokens, second["device_code"]))["error"] == "authorization_pending"


@pytest.mark.slow
@pytest.mark.usefixtures("tv")
def test_without_require_mfa_bob_approves_with_his_password(tokens: TokenClient, device_page: DevicePage,
                                                            clock: ManualClock) -> None:
    start = started(authorize_device(tokens, scope="charges:read"))
    done = device_page.decide(device_page.enter(start["user_code"]), "approve", "bob", "bob-password")
    assert "You approved the request" in done.text()
    clock.advance(5)
    assert device_claims(tokens, start["device_code"])["acr"] == "password"


@pytest.mark.slow
@pytest.mark.usefixtures("tv")
def test_wrong_codes_on_the_device_page_lock_the_second_factor(tokens: TokenClient, device_page: DevicePage,
                                                              clock: ManualClock) -> None:
    """The device page's step counts on the second factor's own throttle (docs/strong-authentication.md): LOCK_AFTER
    wrong codes lock it, the right code too until the lock ends, and nothing is approved meanwhile."""
    import pyotp

    from authgate.users.factor_throttle import LOCK_AFTER, LOCK_SECONDS

    def code() -> str:
        return str(pyotp.TOTP(BOB_KEY).at(int(clock())))

    require_mfa()
    start = started(authorize_device(tokens, scope="charges:read"))
    step = device_page.decide(device_page.enter(start["user_code"]), "approve", "bob", "bob-password")
    for _ in range(LOCK_AFTER):
        assert WRONG_CODE in give_code(device_page, step, "000000" if code() != "000000" else "111111").text()
    clock.advance(60)  # past every wait window of the password's throttle: this is the factor's lock
    locked = give_code(device_page, step, code())
    assert (locked.status, [(i["name"], i["type"]) for i in locked.inputs]) == (200, FACTOR_FIELDS)
    assert WRONG_CODE in locked.text()
    assert body_of(poll(tokens, start["device_code"]))["error"] == "authorization_pending"
    clock.advance(LOCK_SECONDS - 60)
    later = started(authorize_device(tokens, scope="charges:read"))
    step = device_page.decide(device_page.enter(later["user_code"]), "approve")  # bob's session, still at password
    done = give_code(device_page, step, code())
    assert done.text() == ("Connect a device You approved the request: return to your device, it will be signed in "
                           "within a few seconds. You can close this page.")


NO_SUCH_CODE = ("That code is not valid. Check it on your device: codes last 10 minutes and work once; if it has "
                "expired, start again on the device.")
PASSKEY_REFUSED = ("The passkey could not be used: it is not one of this organisation's, the page expired, or your "
                   "browser's answer did not verify. Try again, or sign in with your password.")


def approved_with(device_page: DevicePage, answer: list[tuple[str, str]]) -> None:
    """The ceremony's answer posted: the whole page saying the request is approved, a session cookie set."""
    done = page_of(device_page._send("POST", fields=answer))
    assert (done.status, {k: done.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    assert done.text() == ("Connect a device You approved the request: return to your device, it will be signed in "
                           "within a few seconds. You can close this page.")
    assert "authgate_session=" in done.headers["Set-Cookie"]


def ceremony_options(shown: Page, **carried: str) -> dict[str, Any]:
    """A passkey ceremony page of the verification page, whole but its text: headers (its one script allowed), the
    hidden fields it posts back (`carried`, the CSRF fields, the credential); its options."""
    assert (shown.status, {k: shown.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    assert shown.headers["Content-Security-Policy"].startswith("default-src 'none'; script-src 'self'; ")
    names = ["action", "user_code", "nonce", "csrf", *[k for k in carried if k not in ("action", "user_code")],
             "credential"]
    assert [(i["name"], i["type"]) for i in shown.inputs] == [(name, "hidden") for name in names]
    assert {k: shown.hidden()[k] for k in carried} == carried
    return options_of(shown)


def passkey_step(tokens: TokenClient, device_page: DevicePage) -> tuple[dict[str, Any], Page]:
    """Under require_mfa, alice (whose only factor is a passkey) approves with her password: the step, whole, then
    its passkey ceremony page, whole."""
    start = body_of(authorize_device(tokens, scope="openid charges:read"))
    step = device_page.decide(device_page.enter(start["user_code"]), "approve", "alice", "alice-password")
    assert (step.status, {k: step.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    assert [(i["name"], i["type"]) for i in step.inputs] == FACTOR_FIELDS
    assert [(b.get("name"), b.get("value")) for b in step.buttons] == [(None, None), ("use", "passkey")]
    assert step.text() == (f"Second factor Your organisation requires a second factor to approve Living-room TV "
                           f"(code {start['user_code']} ). Enter the six-digit code from your authenticator app, "
                           f"or one of your recovery codes. Code Approve Use a passkey instead")
    shown = page_of(device_page._send("POST", fields=[*step.hidden().items(), ("use", "passkey")]))
    options = ceremony_options(shown, action="factor", user_code=start["user_code"],
                               factor_ticket=step.hidden()["factor_ticket"])
    assert shown.text() == (f"Second factor To approve Living-room TV (code {start['user_code']} ), confirm it is you "
                            "with one of your passkeys: your browser or device will ask you to unlock it. "
                            f"{json.dumps(options)} Use a passkey")
    assert body_of(poll(tokens, start["device_code"]))["error"] == "authorization_pending"
    return start, shown


@pytest.mark.slow
@pytest.mark.usefixtures("tv", "localhost")
def test_require_mfa_takes_alices_passkey_as_her_second_factor(tokens: TokenClient, device_page: DevicePage,
                                                               clock: ManualClock) -> None:
    require_mfa()
    device = enrolled(clock)
    start, shown = passkey_step(tokens, device_page)
    options = options_of(shown)
    assert (options["rpId"], options["userVerification"], options["allowCredentials"]) == (
        "localhost", "required", [{"id": device.id, "type": "public-key"}])
    answer = answered(shown, device)
    approved_with(device_page, answer)
    # Single use: the request is approved, and the step's session was raised under a new secret, so the same
    # answer approves no other request either.
    again = page_of(device_page._send("POST", fields=answer))
    assert NO_SUCH_CODE in again.text()
    other = body_of(authorize_device(tokens, scope="openid charges:read"))
    replayed = page_of(device_page._send("POST", fields=[(k, other["user_code"] if k == "user_code" else v)
                                                         for k, v in answer]))
    assert "The second-factor step expired or was used already. Choose Approve again." in replayed.text()
    clock.advance(5)
    result = poll(tokens, start["device_code"])
    assert result["statusCode"] == 200, result["body"]
    access, identity = claims_of(body_of(result)["access_token"]), claims_of(body_of(result)["id_token"])
    assert (access["sub"], access["username"], access["acr"], access["auth_time"]) == (
        ALICE_ID, "alice", "mfa", int(clock()) - 5)
    assert (identity["acr"], identity["amr"]) == ("mfa", ["hwk", "pwd", "user", "mfa"])


@pytest.mark.slow
@pytest.mark.usefixtures("tv", "localhost")
@pytest.mark.parametrize("how", ["bob's passkey", "no user verification", "a tampered signature"])
def test_a_passkey_that_does_not_prove_alice_approves_nothing(tokens: TokenClient, device_page: DevicePage,
                                                              clock: ManualClock, how: str) -> None:
    require_mfa()
    device = enrolled(clock)
    start, shown = passkey_step(tokens, device_page)
    if how == "bob's passkey":
        answer = answered(shown, enrolled(clock, "demo", "bob"))
    else:
        answer = answered(shown, device, verified=how != "no user verification", tamper=how == "a tampered signature")
    again = page_of(device_page._send("POST", fields=answer))
    assert (again.status, {k: again.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    assert [(i["name"], i["type"]) for i in again.inputs] == FACTOR_FIELDS
    assert again.text().startswith("Second factor Your organisation requires a second factor to approve Living-room "
                                   f"TV (code {start['user_code']} ). Enter the six-digit code from your "
                                   f"authenticator app, or one of your recovery codes. {PASSKEY_REFUSED} Code")
    clock.advance(5)
    assert body_of(poll(tokens, start["device_code"]))["error"] == "authorization_pending"


def passkey_sign_in_page(tokens: TokenClient, device_page: DevicePage) -> tuple[dict[str, Any], Page]:
    """A browser with no session: the decision page offers "Approve with a passkey"; its ceremony page, whole."""
    start = body_of(authorize_device(tokens, scope="openid charges:read"))
    decision = device_page.enter(start["user_code"])
    assert [(b.get("name"), b.get("value")) for b in decision.buttons] == [
        ("decision", "approve"), ("decision", "deny"), ("decision", "passkey")]
    assert decision.text().endswith("Username Password Approve Deny Approve with a passkey")
    shown = device_page.decide(decision, "passkey")
    options = ceremony_options(shown, action="decide", user_code=start["user_code"], decision="passkey")
    assert (options["rpId"], options["userVerification"], options["allowCredentials"]) == (
        "localhost", "required", [])
    assert shown.text() == (f"Connect a device Approve Living-room TV (code {start['user_code']} ) with a passkey of "
                            "this organisation: your browser or device will ask you to unlock it (a fingerprint, "
                            f"your face or a PIN). {json.dumps(options)} Use a passkey")
    return start, shown


@pytest.mark.usefixtures("tv", "localhost")
def test_alice_approves_a_device_with_her_passkey_alone(tokens: TokenClient, device_page: DevicePage,
                                                        clock: ManualClock) -> None:
    """No username, no password: the passkey names her, and it is `mfa` on its own, so require_mfa asks nothing
    more."""
    require_mfa()
    device = enrolled(clock)
    start, shown = passkey_sign_in_page(tokens, device_page)
    answer = answered(shown, device)
    approved_with(device_page, answer)
    # The challenge was spent: the same answer signs nobody in for another request.
    other = body_of(authorize_device(tokens, scope="openid charges:read"))
    device_page.browser.cookie = "; ".join(c for c in (device_page.browser.cookie or "").split("; ")
                                           if not c.startswith("authgate_session="))
    replayed = page_of(device_page._send("POST", fields=[(k, other["user_code"] if k == "user_code" else v)
                                                         for k, v in answer]))
    assert PASSKEY_REFUSED in replayed.text() and "Username Password Approve" in replayed.text()
    clock.advance(5)
    result = poll(tokens, start["device_code"])
    assert result["statusCode"] == 200, result["body"]
    access, identity = claims_of(body_of(result)["access_token"]), claims_of(body_of(result)["id_token"])
    assert (access["sub"], access["username"], access["acr"], access["auth_time"]) == (
        ALICE_ID, "alice", "mfa", int(clock()) - 5)
    assert (identity["acr"], identity["amr"]) == ("mfa", ["hwk", "user", "mfa"])
    assert body_of(poll(tokens, other["device_code"]))["error"] == "authorization_pending"


@pytest.mark.usefixtures("tv", "localhost")
@pytest.mark.parametrize("how", ["another tenant's passkey", "no user verification", "a tampered signature"])
def test_a_passkey_sign_in_that_does_not_hold_approves_nothing(tokens: TokenClient, device_page: DevicePage,
                                                               clock: ManualClock, how: str) -> None:
    from authgate.stores.users import UserStore

    if how == "another tenant's passkey":
        UserStore().create("other", "olga", "olga-password-1")
        device = enrolled(clock, "other", "olga")
    else:
        device = enrolled(clock)
    start, shown = passkey_sign_in_page(tokens, device_page)
    answer = answered(shown, device, verified=how != "no user verification", tamper=how == "a tampered signature")
    again = page_of(device_page._send("POST", fields=answer))
    assert (again.status, {k: again.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    assert [(b.get("name"), b.get("value")) for b in again.buttons] == [
        ("decision", "approve"), ("decision", "deny"), ("decision", "passkey")]
    assert again.text().endswith(f"{PASSKEY_REFUSED} Username Password Approve Deny Approve with a passkey")
    assert "authgate_session=" not in again.headers.get("Set-Cookie", "")
    clock.advance(5)
    assert body_of(poll(tokens, start["device_code"]))["error"] == "authorization_pending"
