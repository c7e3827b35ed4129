"""The demo's "an agent asks to pay 12.50" (issue 31 item 5), in headless Chromium against `authgate serve` and its
demo app: opening the agent's page asks nothing, its button has demo-agent ask bob through CIBA with a `charge` of 12.50 (RFC 9396), the outbox shows bob's approval
link, bob approves with his password and one-time code, and the agent's token creates exactly one charge; the
second is refused with authorization_details_exceeded. Asserts what each page shows."""

from __future__ import annotations

import json
import time

import pytest

from tests.e2e.chromium import chromium, screenshot, watch
from tests.e2e.conftest import LocalStack

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]

BOB_TOTP = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # the demo seed's bob (RFC 6238's published test key)
WORDS = "charge up to 12.50 USD, once — 'Order 1042'"


def backchannel_requests(stack: LocalStack) -> int:
    """The backchannel authentication requests (CIBA 7.1) the stack has answered so far."""
    return sum(1 for line in stack.log(tail=100_000).splitlines()
               if line.startswith('{"level": "INFO"') and json.loads(line).get("path") == "/oauth/backchannel")


def test_an_agent_asks_bob_to_pay_and_charges_once(demo_stack: LocalStack) -> None:
    import pyotp

    demo = demo_stack.demo_app
    assert demo is not None
    with chromium() as browser:
        context = browser.new_context()
        seen = watch(context)
        page = context.new_page()
        page.goto(f"{demo}/")
        before = backchannel_requests(demo_stack)
        page.click("text=An agent asks to pay 12.50")
        page.wait_for_url(f"{demo}/agent")
        page.reload()  # opening the page, once or again, asks nothing: the button does
        assert backchannel_requests(demo_stack) == before
        page.click("button:text-is('Ask bob to approve 12.50')")
        page.wait_for_url(f"{demo}/agent/request?t=*")
        assert backchannel_requests(demo_stack) == before + 1
        asked = page.inner_text("main")
        assert page.locator("section.step h2").all_inner_texts() == [
            "1. The agent asks: HTTP 200", "2. bob approves on his own device", "3. Meanwhile the agent polls"]
        assert '"interval": 5' in asked, asked
        # The hint uses what the project installs, and the seed's published key.
        assert (".venv/bin/python -c 'import pyotp; print(pyotp.TOTP(\"GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\").now())'"
                in asked and "oathtool" not in asked), asked
        page.reload()  # the request's page, shown again, asks nothing again
        assert backchannel_requests(demo_stack) == before + 1
        page.click("text=Check whether bob approved")
        pending = page.inner_text("main")
        assert "Not approved yet" in pending and '"error": "authorization_pending"' in pending, pending
        poll_url = page.url

        assert demo_stack.mails("bob@demo.example", "Approve a request from Demo payment agent")  # the poller's
        page.goto(f"{demo}/outbox")
        mail = page.locator("li", has_text="Approve a request from Demo payment agent").first
        assert WORDS in mail.inner_text() and "It shows this message: Order 1042" in mail.inner_text()
        assert ("From: authgate <no-reply@localhost>\nTo: bob@demo.example\nSubject: Approve a request from Demo "
                "payment agent") in mail.inner_text(), mail.inner_text()
        mail.locator("a[href*='/oauth/approve?token=']").click()
        page.wait_for_url(f"{demo_stack.base_url}/oauth/approve?token=*")
        approval = page.inner_text("main")
        assert ("Demo payment agent asks you to approve:\n\nSign you in with your account\nCreate charges\n"
                f"{WORDS}") in approval, approval
        assert "The application shows this message: Order 1042" in approval and "Signing in as bob." in approval
        assert "max_charges" not in page.content()
        page.fill("#password", "bob-password")
        page.fill("#code", pyotp.TOTP(BOB_TOTP).now())
        page.click("button[value=approve]")
        assert "Approved. The application can go on; you may close this page." in page.inner_text("main")

        time.sleep(5)  # the poll interval (CIBA 7.3)
        page.goto(poll_url)
        paid = page.inner_text("main")
        screenshot(page, "demo-agent-payment")
        assert page.locator("section.step h2").all_inner_texts() == [
            "1. The agent polls: HTTP 200", "2. The agent charges 12.50: HTTP 201",
            "3. The agent tries to charge 12.50 again: HTTP 403"]
        assert "The agent paid 12.50, once" in page.inner_text("body"), paid
        assert "The agent polls: HTTP 200" in paid and '"authorization_details": [' in paid
        assert "The agent charges 12.50: HTTP 201" in paid and '"amount": 1250' in paid
        assert "The agent tries to charge 12.50 again: HTTP 403" in paid
        assert '"code": "authorization_details_exceeded"' in paid, paid
        seen.assert_clean()
