"""Demo Corp SSO through `authgate serve`: the demo identity provider the local stack starts, the record the demo seed
gives tenant demo, and authgate's relying party signing a demo person in with it (docs/local.md)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    with running_stack(tmp_path_factory.mktemp("demo-idp"), "--callback-port", "0") as running:
        yield running


@pytest.fixture
def aimed(stack: LocalStack, monkeypatch: pytest.MonkeyPatch) -> str:
    """This process aimed at the stack, as an admin command is (its tables, its sealing key); the demo IdP's origin."""
    from authgate import caches
    from authgate_cli.local.stack import FAKE_CREDENTIALS

    env = json.loads(stack.state_file.read_text())["env"]
    for name, value in {**FAKE_CREDENTIALS, **env}.items():
        monkeypatch.setenv(name, value)
    caches.reset()
    return str(env["AUTHGATE_DEMO_UPSTREAM"])


def test_the_banner_and_the_seed_name_demo_corp_sso(stack: LocalStack, aimed: str) -> None:
    assert f"Demo Corp SSO: {aimed}/" in stack.log()
    listed = admin(stack, "idps", "list", "--tenant", "demo")
    assert listed.returncode == 0, listed.stderr
    assert ["demo", "democorp", aimed, "oidc", "yes", "democorp.example", "discovery", "yes"] in [
        line.split() for line in listed.stdout.splitlines()]


def test_a_demo_person_signs_in_through_the_relying_party(stack: LocalStack, aimed: str) -> None:
    """No loopback flag: the demo IdP's origin is the one loopback origin the relying party reaches."""
    from authgate.federation.oidc.sign_in import finish, start
    from authgate.identity_providers.model import redirect_uri
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = IdentityProviderStore().get("demo", aimed)
    assert idp is not None and (idp.label, idp.domains, idp.client_id) == (
        "Demo Corp SSO", ("democorp.example",), "authgate-local")
    state, nonce, verifier = (secrets.token_urlsafe(24) for _ in range(3))
    callback = redirect_uri(stack.base_url)
    url = start(idp, redirect_uri=callback, state=state, nonce=nonce, code_verifier=verifier)
    page = requests.get(url, timeout=10)
    assert page.status_code == 200 and "Carol Demo" in page.text
    form = dict(_hidden_fields(page.text), person="democorp-carol")
    back = requests.post(urljoin(url, "/authorize"), data=form, allow_redirects=False, timeout=10)
    assert back.status_code == 302 and back.headers["Location"].startswith(callback + "?")
    params = dict(parse_qsl(urlsplit(back.headers["Location"]).query))
    got = finish(idp, params=params, redirect_uri=callback, expected_state=state, nonce=nonce, code_verifier=verifier)
    assert (got.tenant_id, got.issuer, got.subject, got.email, got.email_verified, got.name, got.acr) == (
        "demo", aimed, "democorp-carol", "carol@democorp.example", True, "Carol Demo", "urn:democorp:pwd")


def _hidden_fields(page: str) -> list[tuple[str, str]]:
    import html
    import re

    return [(html.unescape(n), html.unescape(v))
            for n, v in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page)]


@pytest.mark.browser
@pytest.mark.slow
def test_the_sign_in_page_offers_demo_corp_sso_and_it_signs_erin_in(stack: LocalStack, chromium_browser: Any) -> None:
    """docs/local.md: "Sign in with Demo Corp SSO" on the demo tenant's sign-in page; Erin (a second factor at the
    IdP, trusted by the seed's record) becomes a user of tenant demo, signed in at mfa."""
    context = chromium_browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{stack.demo_app}/")
        page.click("text=Sign in with demo-web")
        page.wait_for_url(f"{stack.base_url}/oauth/authorize?*")
        button = page.locator("button[name=upstream][value=democorp]")
        assert button.inner_text() == "Sign in with Demo Corp SSO"
        button.click()
        page.click("button[name=person][value=democorp-erin]")
        page.wait_for_url(f"{stack.demo_app}/callback?*", timeout=30_000)
        page.wait_for_selector("main[data-flow-done=true]", timeout=15_000)
        id_claims = page.locator("section.step").nth(1).inner_text().split("The ID token's claims", 1)[1]
        assert '"acr": "mfa"' in id_claims
        assert '"fed"' in id_claims
    finally:
        context.close()
