"""The console's identity provider pages in headless Chromium (docs/console.md, "Identity providers"): olivia lists
demo's identity providers (Demo Corp SSO, the local stack's), opens one, adds panva's oidc-provider as an OpenID
Provider with its client secret (a person then signs in with it), changes it, and deletes it after the confirmation;
then adds an issuer of ID-JAGs only with its keys pasted, and opens its change form.

Every page is checked by axe-core (no serious or critical violation) and the CSP watch; screenshots go to
test-artifacts/console-idps-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.document_server import DocumentServer, document_server
from tests.e2e.admin_commands import admin
from tests.e2e.chromium import screenshot, watch
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.console_browser_support import accessible, sign_in_as_olivia
from tests.e2e.federated_browser_support import (
    authorize_url,
    code_at_client,
    sign_in_at_provider,
    watching_client,
)
from tests.e2e.upstream_oidc_support import (
    CLIENT_ID,
    CLIENT_SECRET,
    UpstreamProvider,
    client,
    oidc_provider,
)
from tests.idp_support import TestIdp

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    """The test CA and a certificate for 127.0.0.1 (the provider serves it)."""
    with document_server(tmp_path_factory.mktemp("tls")) as server:
        yield server


@pytest.fixture(scope="module")
def stack(tls: DocumentServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalStack,
                                                                                          UpstreamProvider]]:
    """authgate serve trusting the test CA with loopback allowed (the local stack's exception), and oidc-provider with
    a client registered for its callback; no IdP record of it yet: olivia adds it."""
    env = {"SSL_CERT_FILE": str(tls.ca), "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true"}
    with running_stack(tmp_path_factory.mktemp("console-idps"), env_extra=env) as serve:
        directory = tls.ca.parent
        with oidc_provider(tls.ca, directory / "server.pem", directory / "server.key",
                           [client(redirect_uris=[f"{serve.base_url}/oauth/federation/callback"])]) as provider:
            yield serve, provider


@pytest.fixture
def browser(chromium_browser: Any) -> Iterator[Any]:
    with watching_client(chromium_browser) as context:
        yield context


def test_olivia_adds_changes_and_deletes_an_identity_provider(stack: tuple[LocalStack, UpstreamProvider],
                                                             browser: Any, chromium_browser: Any) -> None:
    serve, provider = stack
    base = serve.base_url
    seen = watch(browser)
    page = browser.new_page()
    sign_in_as_olivia(page, serve, "/console/idps?tenant=demo")
    assert page.locator("h1").inner_text() == "Identity providers"
    rows = page.locator("table tbody tr").all_inner_texts()
    assert len(rows) == 1 and rows[0].startswith("democorp\tDemo Corp SSO\thttp://127.0.0.1:"), rows
    accessible(page, "idps-list")

    page.click("table a:text-is('democorp')")
    page.wait_for_url(f"{base}/console/idp?tenant=demo&idp_id=democorp")
    assert page.locator("h1").inner_text() == "Demo Corp SSO (demo)"
    assert page.locator("main h2").all_inner_texts() == ["Identity provider", "Register at the identity provider",
                                                         "Actions"]
    main = page.inner_text("main")
    # This stack does not run the demo IdP itself, so its record is trusted but not offered (authgate_cli.local.loaders).
    assert "Client secret\nset" in main and "Offered for sign-in\nno" in main, main
    accessible(page, "idps-show")
    page.set_viewport_size({"width": 375, "height": 800})  # phone width: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "console-idps-show-phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    page.click("nav >> text=Identity providers")
    page.select_option("#tenant", "demo")
    page.click("button:text-is('Show')")
    page.click("text=Add an OpenID Connect provider")
    page.wait_for_url(f"{base}/console/idp-create?tenant=demo&kind=oidc")
    page.fill("#issuer", provider.issuer)
    page.fill("#client_id", CLIENT_ID)
    page.fill("#client_secret", CLIENT_SECRET)
    page.fill("#label", "Interop SSO")
    page.fill("#idp_id", "interop")
    page.fill("#domains", "interop.example")
    page.check("#create_users")
    accessible(page, "idps-create")
    page.click("button:text-is('Add')")
    page.wait_for_url(f"{base}/console/idp-create")
    assert page.locator("[role=status]").inner_text() == f"Done: tenant demo trusts {provider.issuer} as interop."
    assert CLIENT_SECRET not in page.content()
    assert f"Redirect URI\n{base}/oauth/federation/callback" in page.inner_text("main")
    accessible(page, "idps-created")
    shown = json.loads(admin(serve, "idps", "show", "--tenant", "demo", "--issuer", provider.issuer,
                             "--json").stdout)
    assert {k: shown[k] for k in ("idp_id", "label", "domains", "client_secret_set", "create_users", "sign_in")} == {
        "idp_id": "interop", "label": "Interop SSO", "domains": ["interop.example"], "client_secret_set": True,
        "create_users": True, "sign_in": True}

    # The IdP works: a person signs in with it at demo-web, in a browser of their own.
    with watching_client(chromium_browser) as person:
        signing_in = person.new_page()
        url, _ = authorize_url(base)
        signing_in.goto(url)
        signing_in.click("button[name=upstream][value=interop]")
        sign_in_at_provider(signing_in, provider, "erin")
        assert code_at_client(signing_in)

    page.click("text=Open Interop SSO")
    page.click("main a:text-is('Change')")
    page.wait_for_url(f"{base}/console/idp-update?tenant=demo&idp_id=interop")
    assert page.input_value("#client_secret") == "" and page.input_value("#domains") == "interop.example"
    page.fill("#label", "Interop")
    page.check("#trust_email")
    page.fill("#trust_mfa", "mfa")
    accessible(page, "idps-update")
    page.click("button:text-is('Save')")
    assert page.locator("[role=status]").inner_text() == (
        f"Done: identity provider {provider.issuer} of tenant demo changed.")
    assert "Trust email\nyes" in page.inner_text("main") and "Trust MFA\nmfa" in page.inner_text("main")

    page.click("text=Open Interop")
    page.click("main a:text-is('Delete')")
    page.wait_for_url(f"{base}/console/idp-delete?tenant=demo&idp_id=interop")
    assert page.locator("h1").inner_text() == "Delete Interop (demo)?"
    assert "people who sign in only through it can no longer sign in" in page.inner_text("main")
    accessible(page, "idps-delete")
    page.click("button:text-is('Delete')")
    assert page.locator("[role=status]").inner_text() == (
        f"Done: tenant demo no longer trusts {provider.issuer}: its ID-JAGs and sign-ins are refused from now on.")
    accessible(page, "idps-deleted")
    page.click("text=Back to the identity providers")
    assert [r.split("\t")[0] for r in page.locator("table tbody tr").all_inner_texts()] == ["democorp"]
    assert admin(serve, "idps", "show", "--tenant", "demo", "--issuer", provider.issuer).returncode == 2
    assert seen.violations() == []

    # An issuer of ID-JAGs only: its keys pasted, its page named by its issuer, its change form (with "Sign-in").
    jag = "https://jag.interop.example"
    page.click("text=Add an issuer of ID-JAGs only")
    page.wait_for_url(f"{base}/console/idp-create?tenant=demo&kind=idjag")
    page.fill("#issuer", jag)
    page.fill("#jwks", TestIdp(jag).jwks_json().decode())
    page.select_option("#user_match", "email")
    accessible(page, "idps-create-idjag")
    page.click("button:text-is('Add')")
    assert page.locator("[role=status]").inner_text() == f"Done: tenant demo trusts {jag} as an ID-JAG issuer."
    assert "Keys\n1 key inline" in page.inner_text("main") and "User match\nemail" in page.inner_text("main")
    page.click(f"text=Open {jag}")
    page.click("main a:text-is('Change')")
    page.wait_for_url(f"{base}/console/idp-update?tenant=demo&issuer={quote(jag, safe='')}")
    assert page.input_value("#jwks") == "" and page.input_value("#user_match") == "email"
    accessible(page, "idps-update-idjag")
    shown = json.loads(admin(serve, "idps", "show", "--tenant", "demo", "--issuer", jag, "--json").stdout)
    assert (shown["user_match"], shown["sign_in"], len(shown["jwks"]["keys"])) == ("email", False, 1)
    assert admin(serve, "idps", "delete", "--tenant", "demo", "--issuer", jag).returncode == 0
