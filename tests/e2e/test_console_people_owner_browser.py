"""What only an owner does to people, in headless Chromium (docs/console.md, "People: what only an owner does"):
olivia creates a person in demo, edits them, sets a temporary password (shown once; the person signs in with it and
must change it), withdraws bob's consent for demo-web (its refresh token is then refused) and deletes the person
after the confirmation.

axe-core runs on each page (no serious or critical violation), the CSP watch reports nothing, and the screenshots go
to test-artifacts/console-people-owner-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.e2e.chromium import watch
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.console_browser_support import accessible, sign_in_as_olivia
from tests.e2e.flows import Flows, hidden_fields, pkce_pair

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

DANA = "e2e-dana"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack of its own: olivia's code is single-use per 30-second step."""
    with running_stack(tmp_path_factory.mktemp("authgate-console-people-owner")) as running:
        yield running


def status(page: Any) -> str:
    return str(page.locator("main [role=status]").inner_text())


def test_olivia_creates_edits_resets_withdraws_and_deletes(stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    sign_in_as_olivia(page, stack, "/console/people?tenant=demo")
    accessible(page, "people-owner-people")

    # New person: the form takes what `authgate users create` takes, the password among them.
    page.click("main a:text-is('New person')")
    page.wait_for_url(f"{stack.base_url}/console/person-new?tenant=demo")
    assert page.locator("h1").inner_text() == "New person"
    assert page.locator("#tenant").input_value() == "demo"
    accessible(page, "people-owner-new")
    page.set_viewport_size({"width": 375, "height": 800})  # phone width: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    accessible(page, "people-owner-new-phone")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.fill("#username", DANA)
    page.fill("#name", "Dana Example")
    page.fill("#email", "dana@demo.example")
    page.fill("#password", "dana-first-password")
    page.click("main button:text-is('Create')")
    assert status(page) == f"Done: user {DANA} created in tenant demo."
    accessible(page, "people-owner-created")

    # Edit.
    page.click(f"main a:text-is('Go to {DANA}')")
    page.click("main a:text-is('Edit')")
    assert page.locator("#name").input_value() == "Dana Example"
    accessible(page, "people-owner-edit")
    page.fill("#name", "Dana Edited")
    page.select_option("#email_verified", "yes")
    page.click("main button:text-is('Save')")
    assert status(page) == f"Done: user {DANA} updated in tenant demo."
    accessible(page, "people-owner-updated")
    page.click(f"text=Back to {DANA}")
    profile = page.inner_text("main section >> nth=0")
    assert "Name\nDana Edited" in profile and "Email\ndana@demo.example (verified)" in profile, profile

    # A temporary password: confirmed, shown once, then the person must change it at their sign-in.
    page.click("main a:text-is('Set a temporary password')")
    assert page.inner_text("main").startswith(f"Set a temporary password: {DANA} (demo)?\n\nA new password is made")
    accessible(page, "people-owner-confirm-reset")
    page.click("main button:text-is('Set a temporary password')")
    assert status(page) == (f"Done: user {DANA} given a temporary password (changed at the next sign-in; its "
                            "sessions and refresh tokens end now) in tenant demo.")
    temporary = page.locator("main section code").inner_text()
    assert len(temporary) == 22
    accessible(page, "people-owner-temporary-password")
    page.click(f"text=Back to {DANA}")
    assert temporary not in page.content()
    assert "must change the password" in page.inner_text("main section >> nth=0")
    flows = Flows(stack.base_url)
    try:
        verifier, challenge = pkce_pair()
        change = flows.submit_login(flows.login_page(challenge=challenge), username=DANA, password=temporary)
        assert change.status_code == 200 and "Your password was reset by an administrator." in change.text
        changed = flows.request("POST", "/oauth/authorize", headers={"Accept": "text/html"}, data={
            **hidden_fields(change.text), "new_password": "dana-own-password", "confirm": "dana-own-password"})
        assert changed.status_code == 303, changed.text[:300]
        code = parse_qs(urlsplit(changed.headers["Location"]).query)["code"][0]
        assert flows.exchange(code, verifier).status_code == 200

        # bob allows demo-web; olivia withdraws that consent: demo-web's refresh token is refused.
        code, verifier = flows.authorize(username="bob", password="bob-password")
        tokens = flows.exchange(code, verifier).json()
        page.goto(f"{stack.base_url}/console/person?tenant=demo&username=bob")
        consents = page.inner_text("main section:has(h2:text-is('Consents'))")
        assert "demo-web" in consents, consents
        accessible(page, "people-owner-person")  # the consents' table and its Withdraw
        page.click("main tr:has(th:text-is('demo-web')) a:text-is('Withdraw')")
        assert page.inner_text("main").startswith("Withdraw: bob (demo)?\n\nbob's consent for the client demo-web")
        accessible(page, "people-owner-confirm-withdraw")
        page.click("main button:text-is('Withdraw')")
        assert status(page) == "Done: consent of bob in tenant demo for client demo-web withdrawn; 1 grant revoked."
        accessible(page, "people-owner-withdrawn")
        refused = flows.refresh(tokens["refresh_token"])
        assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")

        # Delete, after the confirmation that says what is lost.
        page.goto(f"{stack.base_url}/console/person?tenant=demo&username={DANA}")
        page.click("main a:text-is('Delete')")
        asked = page.inner_text("main")
        assert "linked identities" in asked and "This cannot be undone" in asked, asked
        accessible(page, "people-owner-confirm-delete")
        page.click("main button:text-is('Delete')")
        assert status(page) == f"Done: user {DANA} deleted from tenant demo (its sessions and refresh tokens end now)."
        accessible(page, "people-owner-deleted")
        page.click("text=Back to the people of demo")
        assert DANA not in page.inner_text("main")
        flows.session.cookies.pop("authgate_session", None)  # bob's sign-in above: a new one
        gone = flows.submit_login(flows.login_page(challenge=pkce_pair()[1]), username=DANA,
                                  password="dana-own-password")
        assert gone.status_code == 200 and "The username or password is incorrect" in gone.text
    finally:
        flows.close()
    seen.assert_clean()
