"""The console's resources and signing-keys pages in headless Chromium (docs/console.md): olivia lists the
resources, registers one and reads its introspection secret once, changes it, deletes it after the confirmation;
lists the signing keys, opens one, and rotates after the confirmation; adds a SAML signing key, opens its
certificate and retires it, each after the confirmation. The same stack's `authgate` commands see what she did.

Every page is checked by axe-core (no serious or critical violation) and by the CSP watch; screenshots go to
test-artifacts/console-resources-*.png, console-keys-*.png and console-saml-keys.png, and the resources list is
checked at phone width.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.admin_commands import admin
from tests.e2e.chromium import screenshot, watch
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.console_browser_support import accessible, sign_in_as_olivia

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

MCP = "https://mcp.example.com/mcp"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack of its own: olivia signs in once to it (her code is single-use per 30-second step)."""
    with running_stack(tmp_path_factory.mktemp("authgate-console-resources")) as running:
        yield running


def test_olivia_registers_changes_and_deletes_a_resource_and_rotates_the_keys(stack: LocalStack,
                                                                             context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    sign_in_as_olivia(page, stack, "/console/resources")
    assert page.title() == "Resources · authgate console"
    assert page.locator("nav a[aria-current=page]").inner_text() == "Resources"
    assert page.locator("table tbody tr").all_inner_texts() == [
        f"{stack.base_url}/charges\tCharges API\tcharges:read charges:write charges:refund\tall\t(built in)"]
    accessible(page, "resources-list")
    page.set_viewport_size({"width": 375, "height": 800})  # phone width: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "console-resources-list-phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    # Register: the form, then the introspection credentials, once.
    page.click("main a:text-is('Register a resource')")
    page.wait_for_url(f"{stack.base_url}/console/resources/new")
    accessible(page, "resources-new")
    page.fill("#uri", MCP)
    page.fill("#scopes", "mcp:read mcp:write")
    page.fill("#tenants", "demo")
    page.fill("#name", "Files")
    page.fill("#scope_descriptions", "mcp:read=Read your files")
    page.click("main button:text-is('Register')")
    page.wait_for_url(f"{stack.base_url}/console/resources/new")
    status = page.locator("main [role=status]").inner_text()
    client_id = re.fullmatch(rf"Done: resource {re.escape(MCP)} registered, with its introspection client "
                             r"(rs-[0-9a-f]{16})\.", status)
    assert client_id is not None, status
    secret = page.locator("main dd >> nth=1").inner_text()
    assert page.locator("main dt").all_inner_texts() == ["Client id", "Client secret"] and len(secret) >= 32
    assert "The secret is shown once and stored only as a hash" in page.inner_text("main")
    accessible(page, "resources-registered")
    # The stack's introspection endpoint takes the credentials shown.
    introspected = context.request.post(f"{stack.base_url}/oauth/introspect", form={"token": "not-a-token"},
                                        headers={"Authorization": "Basic " + _basic(client_id.group(1), secret)})
    assert (introspected.status, introspected.json()) == (200, {"active": False})

    page.click(f"main a:text-is('Open {MCP}')")
    page.wait_for_url(f"{stack.base_url}/console/resource?uri={quote(MCP, safe='')}")
    assert page.locator("h1").inner_text() == "Files"
    assert secret not in page.content()
    assert page.locator("main h2").all_inner_texts() == ["Resource", "Actions", "Scopes",
                                                         "Authorization details types"]
    accessible(page, "resources-one")

    # Change: the form holds what the resource has; the command sees the change.
    page.click("main a:text-is('Change')")
    assert page.input_value("#scopes") == "mcp:read mcp:write" and page.input_value("#name") == "Files"
    accessible(page, "resources-change")
    page.fill("#name", "Team files")
    page.fill("#description", "The files of your team.")
    page.click("main button:text-is('Save')")
    assert page.locator("main [role=status]").inner_text() == f"Done: resource {MCP} changed."
    shown = admin(stack, "resources", "show", MCP, "--json")
    assert shown.returncode == 0, shown.stderr
    assert {k: json.loads(shown.stdout)[k] for k in ("name", "description", "introspection_client_id")} == {
        "name": "Team files", "description": "The files of your team.", "introspection_client_id": client_id.group(1)}

    # Delete: the confirmation first, then the command's sentence.
    page.click(f"main a:text-is('Back to {MCP}')")
    page.click("main a:text-is('Delete')")
    assert page.locator("h1").inner_text() == f"Delete {MCP}?"
    accessible(page, "resources-confirm-delete")
    page.click("main button:text-is('Delete')")
    assert page.locator("main [role=status]").inner_text() == (
        f"Done: resource {MCP} deleted, and its introspection client {client_id.group(1)}; tokens already issued "
        "for it expire on their own.")
    accessible(page, "resources-deleted")
    gone = admin(stack, "resources", "show", MCP)
    assert (gone.returncode, gone.stderr.splitlines()[-1]) == (
        2, f"authgate resources: no resource {MCP!r} (see `authgate resources list`)")

    # The signing keys: the list, one key's public JWK, one rotation step after the confirmation.
    page.click("nav >> text=Keys")
    page.wait_for_url(f"{stack.base_url}/console/keys")
    rows = page.locator("table tbody tr").all_inner_texts()
    assert sorted(row.split("\t")[1] for row in rows) == ["current", "next"]
    accessible(page, "keys-list")
    current = next(row.split("\t")[0] for row in rows if row.split("\t")[1] == "current")
    page.click(f"table a:text-is('{current}')")
    page.wait_for_url(f"{stack.base_url}/console/key?kid={current}")
    jwk = json.loads(page.locator("main pre").inner_text())
    assert jwk["kid"] == current and "d" not in jwk
    accessible(page, "keys-one")
    page.click("nav >> text=Keys")
    page.click("main a:text-is('Rotate now')")
    page.wait_for_url(f"{stack.base_url}/console/keys/rotate")
    accessible(page, "keys-confirm-rotate")
    page.click("main button:text-is('Rotate')")
    said = page.locator("main [role=status]").inner_text()
    # A stack just started: its next key is not yet published long enough, and the page says so as the command does.
    waiting = re.fullmatch(r"Done: (next key \S+ is published but may not sign before \S+ \(JWKS max-age \+ leeway "
                           r"after publication\); run `authgate keys rotate` again after that)\.", said)
    assert waiting is not None, said
    accessible(page, "keys-rotated")
    rotated = admin(stack, "keys", "rotate")
    assert rotated.returncode == 0 and rotated.stdout.splitlines()[0] == waiting.group(1), rotated.stdout

    # The SAML signing keys, under Keys: none yet; one added after the confirmation, its certificate shown (never its
    # private half); the command lists the same key.
    page.click("nav >> text=Keys")
    page.click("main a:text-is('SAML signing keys')")
    page.wait_for_url(f"{stack.base_url}/console/saml-keys")
    assert page.locator("nav a[aria-current=page]").inner_text() == "Keys"
    assert "No SAML signing key: requests go unsigned." in page.inner_text("main")
    accessible(page, "saml-keys-none")
    page.click("main a:text-is('Add a key')")
    page.wait_for_url(f"{stack.base_url}/console/saml-keys/add")
    assert page.locator("h1").inner_text() == "Add a SAML signing key?"
    accessible(page, "saml-keys-confirm-add")
    page.click("main button:text-is('Add')")
    added = re.fullmatch(r"Done: added, signing: ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})\.",
                         page.locator("main [role=status]").inner_text())
    assert added is not None
    fingerprint = added.group(1)
    accessible(page, "saml-keys-added")
    page.click("main a:text-is('Back to the SAML signing keys')")
    assert [row.split("\t")[:2] for row in page.locator("table tbody tr").all_inner_texts()] == [[fingerprint, "yes"]]
    accessible(page, "saml-keys-list")
    screenshot(page, "console-saml-keys")
    page.click(f"table a:text-is('{fingerprint}')")
    page.wait_for_url(f"{stack.base_url}/console/saml-key?fingerprint={quote(fingerprint, safe='')}")
    certificate = page.locator("main pre").inner_text()
    assert certificate.startswith("-----BEGIN CERTIFICATE-----") and "PRIVATE" not in page.content()
    accessible(page, "saml-keys-one")
    listed = admin(stack, "saml-keys", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(k["fingerprint_sha256"], k["signs"], k["certificate"].strip()) for k in json.loads(listed.stdout)] == [
        (fingerprint, True, certificate.strip())]
    # Retired after the confirmation: requests go unsigned again, as the command then says.
    page.click("main a:text-is('Back to the SAML signing keys')")
    page.click("main a:text-is('Retire the signing key')")
    page.wait_for_url(f"{stack.base_url}/console/saml-keys/retire")
    accessible(page, "saml-keys-confirm-retire")
    page.click("main button:text-is('Retire')")
    assert page.locator("main [role=status]").inner_text() == f"Done: retired: {fingerprint}."
    none = admin(stack, "saml-keys", "list")
    assert (none.returncode, none.stdout) == (0, "no SAML signing key: requests go unsigned (authgate saml-keys add)\n")
    seen.assert_clean()


def _basic(client_id: str, secret: str) -> str:
    import base64

    return base64.b64encode(f"{client_id}:{secret}".encode()).decode()
