"""Federated sign-in in headless Chromium through `authgate serve`, with identity providers nobody here wrote
(docs/federation.md): panva's oidc-provider (first sign-in with provisioning, the code at the client; a second
sign-in by the IdP's single sign-on; linking an account the person already has after proving its password) and
SimpleSAMLphp (a first sign-in). The IdP records are made by `authgate idps create`, as an operator makes them.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.document_server import DocumentServer
from tests.e2e.admin_commands import admin
from tests.e2e.chromium import watch
from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command, running_stack
from tests.e2e.federated_browser_support import (
    authorize_url,
    claims,
    code_at_client,
    sign_in_at_provider,
    tls,
    tokens,
    watching_client,
)
from tests.e2e.upstream_oidc_support import (
    CLIENT_ID,
    CLIENT_SECRET,
    UpstreamProvider,
    client,
    oidc_provider,
)

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]
__all__ = ["tls"]  # the CA and certificate fixture (tests.e2e.federated_browser_support)


class Stack:
    """authgate serve trusting the test CA (loopback allowed), and oidc-provider registered for its callback."""

    def __init__(self, serve: LocalStack, provider: UpstreamProvider, tmp: Path) -> None:
        self.serve, self.provider, self.tmp = serve, provider, tmp
        self.base = serve.base_url


@pytest.fixture(scope="module")
def stack(tls: DocumentServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("federated")
    env = {"SSL_CERT_FILE": str(tls.ca), "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true"}
    with running_stack(tmp, env_extra=env) as serve:
        callback = f"{serve.base_url}/oauth/federation/callback"
        directory = tls.ca.parent
        with oidc_provider(tls.ca, directory / "server.pem", directory / "server.key",
                           [client(redirect_uris=[callback])]) as provider:
            secret = tmp / "client-secret"
            secret.write_text(CLIENT_SECRET)
            made = admin(serve, "idps", "create", "--tenant", "demo", "--issuer", provider.issuer, "--protocol",
                         "oidc", "--client-id", CLIENT_ID, "--client-secret-file", str(secret), "--id", "interop",
                         "--label", "Interop SSO", "--create-users")
            assert made.returncode == 0, made.stderr
            yield Stack(serve, provider, tmp)


@pytest.fixture
def browser(chromium_browser: Any) -> Iterator[Any]:
    with watching_client(chromium_browser) as context:
        yield context


def test_first_sign_in_provisions_the_person_then_the_idps_single_sign_on_signs_in_again(
        stack: Stack, browser: Any) -> None:
    seen = watch(browser)
    page = browser.new_page()
    url, verifier = authorize_url(stack.base)
    page.goto(url)
    page.click("button[name=upstream][value=interop]")
    sign_in_at_provider(page, stack.provider, "dave")
    first = tokens(stack.base, code_at_client(page), verifier)
    person = claims(first["id_token"])
    assert person["sub"].startswith("usr_")
    assert (person["acr"], person["amr"]) == ("password", ["fed"])
    shown = admin(stack.serve, "users", "show", "--tenant", "demo", "--username", "dave")
    assert shown.returncode == 0, shown.stderr
    assert stack.provider.issuer in shown.stdout

    # authgate's session ended (its cookie gone); the IdP's lives: the button signs the same person in with no
    # page at the IdP.
    browser.clear_cookies(name="authgate_session")
    visited: list[str] = []
    page.on("framenavigated", lambda frame: visited.append(frame.url))
    url, verifier = authorize_url(stack.base)
    page.goto(url)
    page.click("button[name=upstream][value=interop]")
    again = tokens(stack.base, code_at_client(page), verifier)
    assert claims(again["id_token"])["sub"] == person["sub"]
    assert not any(u.startswith(f"{stack.provider.issuer}/interaction/") for u in visited)
    seen.assert_clean()


def test_an_account_the_person_has_is_linked_after_its_password(stack: Stack, browser: Any) -> None:
    made = admin(stack.serve, "users", "create", "--tenant", "demo", "--username", "carol-here", "--email",
                 "carol@democorp.example", "--email-verified", "--password-stdin", stdin="carol-local-password\n")
    assert made.returncode == 0, made.stderr
    user_id = json.loads(admin(stack.serve, "users", "show", "--tenant", "demo", "--username", "carol-here",
                               "--json").stdout)["user_id"]
    page = browser.new_page()
    url, verifier = authorize_url(stack.base)
    page.goto(url)
    page.click("button[name=upstream][value=interop]")
    sign_in_at_provider(page, stack.provider, "carol")
    page.wait_for_selector("text=Link your account")
    assert "carol@democorp.example" in page.locator("main").inner_text()
    page.fill("#username", "carol-here")
    page.fill("#password", "carol-local-password")
    page.click("text=Link and continue")
    assert claims(tokens(stack.base, code_at_client(page), verifier)["id_token"])["sub"] == user_id


def test_a_saml_idp_signs_a_new_person_in(stack: Stack, browser: Any, tmp_path: Path) -> None:
    from authgate.federation.saml.sp_metadata import acs_url, sp_entity_id
    from tests.e2e.saml_idp import simplesamlphp

    entity = sp_entity_id(stack.base, "demo")
    with simplesamlphp(tmp_path / "simplesamlphp", sp_entity_id=entity, acs_url=acs_url(stack.base, "demo"),
                       slo_url=f"{entity}/slo") as idp:
        metadata = tmp_path / "idp-metadata.xml"
        metadata.write_bytes(requests.get(idp.metadata_url, timeout=20).content)
        # The IdP's endpoints are http on loopback: allowed as the stack allows them (its outbound flag).
        made = subprocess.run([*authgate_command(), "idps", "create", "--tenant", "demo", "--protocol", "saml",
                               "--metadata-file", str(metadata), "--id", "dana-saml", "--label", "Democorp SAML",
                               "--create-users"], cwd=REPO_ROOT, check=False, capture_output=True, text=True,
                              timeout=60, env={**stack.serve.env(), "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true"})
        assert made.returncode == 0, made.stderr
        page = browser.new_page()
        url, verifier = authorize_url(stack.base)
        page.goto(url)
        page.click("button[name=upstream][value=dana-saml]")
        page.wait_for_selector("input[name=password]", timeout=30_000)
        page.fill("input[name=username]", "dana")
        page.fill("input[name=password]", "dana-password")
        page.locator("input[name=password]").press("Enter")
        person = claims(tokens(stack.base, code_at_client(page), verifier)["id_token"])
        assert person["sub"].startswith("usr_")
        assert person["amr"] == ["fed"]


def test_a_second_factor_at_the_idp_counts_as_mfa_once_its_record_trusts_it(stack: Stack, browser: Any) -> None:
    """Erin signs in at oidc-provider with a second factor (acr urn:democorp:mfa). Trusted for it (`--trust-mfa`),
    a request for mfa is met by that sign-in alone: no step of authgate's."""
    updated = admin(stack.serve, "idps", "update", "--tenant", "demo", "--issuer", stack.provider.issuer,
                    "--trust-mfa", "urn:democorp:mfa")
    assert updated.returncode == 0, updated.stderr
    page = browser.new_page()
    url, verifier = authorize_url(stack.base)
    page.goto(url + "&acr_values=mfa")
    page.click("button[name=upstream][value=interop]")
    sign_in_at_provider(page, stack.provider, "erin")
    person = claims(tokens(stack.base, code_at_client(page), verifier)["id_token"])
    assert person["acr"] == "mfa"
    assert "fed" in person["amr"]
