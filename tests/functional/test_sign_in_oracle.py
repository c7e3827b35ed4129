"""The sign-in form of a self-registered client tells no tenant from another until the password is right.

The person names their organisation (tenant) on the form. Before the password is checked the answer
may not depend on that tenant: whether it exists, forbids the requested scopes, refuses the client,
or keeps the resource from it (issue 26 item 5). Each answer costs the same one scrypt. After a
correct password, the tenant's refusals are shown.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authgate.resources.model import Resource
from tests.demo import ISSUER
from tests.document_server import DocumentServer
from tests.functional.authorize_support import (
    Browser,
    Page,
    assert_error_page,
    headers_of,
    page_of,
    redirect_of,
)
from tests.functional.self_registration_support import params, query

# Slow: every test signs in several times at full scrypt cost.
pytestmark = pytest.mark.slow

MCP = "https://mcp.example.com/mcp"
# The tenants a person might type, each with a user alice / alice-password where it exists.
TENANTS = {
    "demo": {},                                                    # accepts the client (client_metadata_hosts *)
    "forbids": {"forbidden_scopes": frozenset({"charges:read"})},  # forbids the requested scope
    "refuses": {"client_metadata_hosts": ()},                      # does not accept the client
    "no-such-org": None,                                           # does not exist
}


@pytest.fixture
def tenants(cimd: DocumentServer) -> None:
    from authgate.stores.resources import ResourceStore
    from authgate.stores.tenants import TenantStore
    from authgate.stores.users import UserStore

    store = TenantStore()
    demo = store.get("demo")
    assert demo is not None
    for tenant_id, settings in TENANTS.items():
        if settings is not None and tenant_id != "demo":
            store.put(demo._replace(tenant_id=tenant_id, name=tenant_id.title(), **settings))
            UserStore().create(tenant_id, "alice", "alice-password")
    ResourceStore().create(Resource(MCP, ("mcp:read",), ("demo",)))


@pytest.fixture
def scrypts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], int]]:
    """How many scrypt derivations ran (hashlib's, the standard library's: nothing of authgate is replaced)."""
    real, count = hashlib.scrypt, [0]

    def counted(*args: Any, **kwargs: Any) -> bytes:
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(hashlib, "scrypt", counted)
    yield lambda: count[0]


def post(browser: Browser, page: Page, tenant: str, password: str) -> dict[str, Any]:
    return browser.post(list(page.hidden().items()) + [("tenant", tenant), ("username", "alice"),
                                                       ("password", password), ("decision", "approve")])


def seen(result: dict[str, Any], tenant: str) -> tuple[int, dict[str, str], str]:
    """The whole response, with what differs by nature removed: the request id, and the person's own
    input echoed back (the organisation they typed)."""
    headers = {k: v for k, v in headers_of(result).items() if k != "x-request-id"}
    body = re.sub(rf'value="{re.escape(tenant)}"', 'value="TYPED"', result["body"])
    return result["statusCode"], headers, body


@pytest.mark.parametrize("extra", [{"scope": "charges:read"}, {"scope": "mcp:read", "resource": MCP}],
                         ids=["charges-scope", "resource-of-demo-only"])
def test_a_wrong_password_is_answered_alike_for_every_tenant(tenants: None, cimd: DocumentServer,
                                                            browser: Browser, scrypts: Callable[[], int],
                                                            extra: dict[str, str]) -> None:
    client_id = cimd.document("/oracle.json")
    page = page_of(browser.get(query(client_id, **extra)))
    assert page.status == 200, page.text()
    answers = {}
    for tenant in TENANTS:
        before = scrypts()
        result = post(browser, page, tenant, "wrong-password")
        answers[tenant] = seen(result, tenant)
        assert scrypts() - before == 1, tenant  # the same password-hash work, whether the tenant or user exists
    first = answers["demo"]
    assert first[0] == 200 and "The organisation, username or password is incorrect" in page_of({"statusCode": 200,
                                                                                   "body": first[2]}).text()
    assert {tenant: answer == first for tenant, answer in answers.items()} == dict.fromkeys(TENANTS, True)


def test_after_the_right_password_the_tenants_refusals_are_shown(tenants: None, cimd: DocumentServer,
                                                                 browser: Browser) -> None:
    client_id = cimd.document("/after.json")
    page = page_of(browser.get(params(client_id, scope="charges:read")))
    assert "code" in redirect_of(post(browser, page, "demo", "alice-password")).params
    # The tenant's refusal of a self-registered client this person never approved is a page offering the
    # redirect (RFC 9700 4.11.2; tests/functional/test_authorize_untrusted_redirects.py), never a bare 302.
    forbidden = post(browser, page, "forbids", "alice-password")
    assert forbidden["statusCode"] == 400 and "Location" not in forbidden.get("headers", {})
    assert page_of(forbidden).text().startswith(
        "Invalid scope The tenant forbids the scope charges:read. Error code: invalid_scope · request id ")
    offered = re.search(r'<a href="([^"]+)" rel="noreferrer">', forbidden["body"])
    assert offered is not None
    assert parse_qs(urlsplit(html.unescape(offered.group(1))).query) == {
        "error": ["invalid_scope"], "state": ["s-1"], "iss": [ISSUER],
        "error_description": ["The tenant forbids the scope charges:read."]}
    assert_error_page(post(browser, page, "refuses", "alice-password"), "client_metadata_not_allowed",
                      "Your organisation does not accept applications known only by a metadata document from "
                      "127.0.0.1. Ask its administrator.")
    unknown = page_of(post(browser, page, "no-such-org", "alice-password"))
    assert unknown.status == 200 and "The organisation, username or password is incorrect" in unknown.text()


def post_as(browser: Browser, page: Page, username: str, password: str, tenant: str = "") -> dict[str, Any]:
    return browser.post(list(page.hidden().items()) + [("tenant", tenant), ("username", username),
                                                       ("password", password), ("decision", "approve")])


@pytest.fixture
def globex(tenants: None) -> None:
    """A tenant whose users sign in with their globex.example email address; carol is one of them."""
    from authgate.stores.tenants import TenantStore
    from authgate.stores.users import UserStore

    store = TenantStore()
    demo = store.get("demo")
    assert demo is not None
    store.put(demo._replace(tenant_id="globex", name="Globex", login_domains=("globex.example",)))
    store.claim_login_domains("globex", ("globex.example",))
    UserStore().create("globex", "carol", "carol-password", email="Carol@Globex.example")


@pytest.mark.usefixtures("globex")
def test_an_email_or_the_default_tenant_names_the_organisation(cimd: DocumentServer, browser: Browser,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """No organisation typed: the email's login domain finds the tenant, else the deployment's default does."""
    from authgate import caches

    client_id = cimd.document("/email.json")
    page = page_of(browser.get(params(client_id, scope="charges:read")))
    assert "code" in redirect_of(post_as(browser, page, "carol@globex.example", "carol-password")).params
    refused = page_of(post_as(browser, page, "alice", "alice-password"))  # no default tenant: none named
    assert refused.status == 200 and "The organisation, username or password is incorrect" in refused.text()
    monkeypatch.setenv("AUTHGATE_DEFAULT_TENANT", "demo")
    caches.reset()
    assert "code" in redirect_of(post_as(browser, page, "alice", "alice-password")).params


@pytest.mark.usefixtures("globex")
def test_a_wrong_password_tells_no_login_domain_or_email_from_another(cimd: DocumentServer,
                                                                      browser: Browser,
                                                                      scrypts: Callable[[], int]) -> None:
    client_id = cimd.document("/email-oracle.json")
    page = page_of(browser.get(params(client_id, scope="charges:read")))
    answers = {}
    for username in ("carol@globex.example", "nobody@globex.example", "carol@unknown.example", "carol"):
        before = scrypts()
        result = post_as(browser, page, username, "wrong-password")
        status, headers, body = seen(result, "")
        answers[username] = (status, headers, body.replace(f'value="{username}"', 'value="TYPED"'))
        assert scrypts() - before == 1, username
    first = answers["carol@globex.example"]
    assert first[0] == 200 and "The organisation, username or password is incorrect" in first[2]
    assert all(answer == first for answer in answers.values())
