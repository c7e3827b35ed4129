"""A SAML IdP made an OpenID Provider, in headless Chromium through `authgate serve` (docs/federation.md, "Changing an
IdP's protocol"): carol links her SAML identity to her account once (its password), the operator runs `authgate idps
update --protocol oidc ... --trust-email --relink-by-email`, and carol's next sign-in through panva's oidc-provider, at
the same IdP, is her account again: the same `sub` in authgate's ID token.

The SAML IdP's sign-on service is stood in for by a page Chromium is given (the IdP's signed assertion, built with the
key its metadata publishes, posted to authgate's ACS); its entityID is oidc-provider's issuer, as one IdP that speaks
both protocols (Keycloak's realms, Entra ID's v1 endpoints) has one identifier for both.
"""

from __future__ import annotations

import base64
import html
import json
import subprocess
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from lxml import etree

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

# The SAML IdP's sign-on service: on loopback, so that its form's POST to the ACS is same-site (the pending sign-in's
# cookie is SameSite=Lax on the local stack); nothing listens there, Chromium is given the page.
SSO = "http://127.0.0.1:9/sso"


@pytest.fixture(scope="module")
def stack(tls: DocumentServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalStack, UpstreamProvider,
                                                                                               Path]]:
    tmp = tmp_path_factory.mktemp("protocol")
    env = {"SSL_CERT_FILE": str(tls.ca), "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true"}
    with running_stack(tmp, env_extra=env) as serve:
        directory = tls.ca.parent
        with oidc_provider(tls.ca, directory / "server.pem", directory / "server.key",
                           [client(redirect_uris=[f"{serve.base_url}/oauth/federation/callback"])]) as provider:
            yield serve, provider, tmp


def saml_sign_on(serve: LocalStack, issuer: str, name_id: str, email: str) -> Any:
    """The IdP's sign-on page for an AuthnRequest (HTTP-Redirect): a form posting its signed assertion to the ACS."""
    from tests.saml_support import assertion, encoded, response, sign

    acs, entity = f"{serve.base_url}/saml/demo/acs", f"{serve.base_url}/saml/demo"

    def answer(route: Any) -> None:
        query = parse_qs(urlsplit(route.request.url).query)
        request = etree.fromstring(zlib.decompress(base64.b64decode(query["SAMLRequest"][0]), -15))
        now = int(time.time())
        said = encoded(response(sign(assertion(issuer=issuer, name_id=name_id, recipient=acs, audience=entity,
                                               in_response_to=request.get("ID"), now=now,
                                               attributes={"mail": [email]})),
                                issuer=issuer, destination=acs, in_response_to=request.get("ID"), now=now))
        relay = query.get("RelayState", [""])[0]
        route.fulfill(status=200, content_type="text/html", body=(
            f'<!doctype html><title>Democorp SAML</title><form method="post" action="{html.escape(acs)}">'
            f'<input type="hidden" name="SAMLResponse" value="{said}">'
            f'<input type="hidden" name="RelayState" value="{html.escape(relay)}">'
            '<button type="submit">Continue to authgate</button></form>'))
    return answer


def test_carol_keeps_her_sub_when_her_saml_idp_becomes_an_openid_provider(
        stack: tuple[LocalStack, UpstreamProvider, Path], chromium_browser: Any) -> None:
    from tests.saml_support import HTTP_REDIRECT, metadata

    serve, provider, tmp = stack
    made = admin(serve, "users", "create", "--tenant", "demo", "--username", "carol-here", "--email",
                 "carol@democorp.example", "--email-verified", "--password-stdin", stdin="carol-local-password\n")
    assert made.returncode == 0, made.stderr
    user_id = json.loads(admin(serve, "users", "show", "--tenant", "demo", "--username", "carol-here",
                               "--json").stdout)["user_id"]
    (tmp / "idp.xml").write_bytes(metadata(entity_id=provider.issuer, sso=((HTTP_REDIRECT, SSO),)))
    # Its sign-on service is http on loopback: allowed as the stack allows it (its outbound flag).
    made = subprocess.run([*authgate_command(), "idps", "create", "--tenant", "demo", "--metadata-file",
                           str(tmp / "idp.xml"), "--id", "acme-sso", "--label", "Acme SSO"], cwd=REPO_ROOT,
                          check=False, capture_output=True, text=True, timeout=60,
                          env={**serve.env(), "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true"})
    assert made.returncode == 0, made.stderr

    # Carol signs in by SAML and links her identity (her NameID) to her account with its password.
    with watching_client(chromium_browser) as browser:
        seen = watch(browser)
        browser.route(f"{SSO}?*", saml_sign_on(serve, provider.issuer, "carol-7f3a", "carol@democorp.example"))
        page = browser.new_page()
        url, verifier = authorize_url(serve.base_url)
        page.goto(url)
        page.click("button[name=upstream][value=acme-sso]")
        page.click("text=Continue to authgate")
        page.wait_for_selector("text=Link your account")
        page.fill("#username", "carol-here")
        page.fill("#password", "carol-local-password")
        page.click("text=Link and continue")
        assert claims(tokens(serve.base_url, code_at_client(page), verifier)["id_token"])["sub"] == user_id
        seen.assert_clean()

    # The IdP now speaks OpenID Connect: refused while carol is linked by her NameID, then done relinking by email.
    secret = tmp / "client-secret"
    secret.write_text(CLIENT_SECRET)
    change = ("idps", "update", "--tenant", "demo", "--issuer", provider.issuer, "--protocol", "oidc", "--client-id",
              CLIENT_ID, "--client-secret-file", str(secret))
    refused = admin(serve, *change)
    assert (refused.returncode, refused.stdout, refused.stderr) == (1, "", (
        f"target: local stack {serve.base_url} (stage local)\nauthgate idps: {provider.issuer} has 1 linked identity, each named by a SAML NameID, which an OpenID "
        "Connect sub does not match: give --relink-by-email (with --trust-email) to remove them and link each person "
        "again by their verified email at their next sign-in\n"))
    changed = admin(serve, *change, "--trust-email", "--relink-by-email", "--json")
    assert changed.returncode == 0, changed.stderr
    shown = json.loads(changed.stdout)
    assert (shown["protocol"], shown["idp_id"], shown["saml"], shown["trust_email"]) == ("oidc", "acme-sso", None, True)

    # Carol signs in through oidc-provider, the same IdP: her account, her sub, no page asking for her password.
    with watching_client(chromium_browser) as browser:
        seen = watch(browser)
        page = browser.new_page()
        url, verifier = authorize_url(serve.base_url)
        page.goto(url)
        page.click("button[name=upstream][value=acme-sso]")
        sign_in_at_provider(page, provider, "carol")
        assert claims(tokens(serve.base_url, code_at_client(page), verifier)["id_token"])["sub"] == user_id
        seen.assert_clean()
