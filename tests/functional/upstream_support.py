"""Driving a sign-in through a tenant's identity provider in-process: the button, the page on the way there, the
IdP's answer at the callback (or the ACS) and the page that brings it back to the flow (docs/federation.md)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import WEB_REDIRECT
from tests.functional.authorize_support import Browser, Page, page_of, redirect_of, web_params
from tests.functional.token_support import TokenClient, body_of
from tests.upstream_oidc import CODE, ScriptedProvider

CALLBACK = "/oauth/federation/callback"


def offer(provider: ScriptedProvider, **fields: Any) -> Any:
    """The demo tenant's record of `provider`, offered for sign-in (its buttons rewritten, caches emptied)."""
    from authgate import caches
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = provider.idp(label=f"{provider.name.upper()} SSO", **fields)
    IdentityProviderStore().create(idp)
    caches.reset()
    return idp


def sign_in_page(browser: Browser, **params: str | None) -> Page:
    page = page_of(browser.get(web_params(**params)))
    assert page.status == 200, page.body[:500]
    return page


def post(browser: Browser, fields: list[tuple[str, str]], path: str = "/oauth/authorize") -> dict[str, Any]:
    """A form POST whose Set-Cookie the browser keeps."""
    result = browser.post(fields, path=path)
    browser.keep_cookies(result)
    return result


def choose(browser: Browser, page: Page, idp_id: str) -> tuple[dict[str, Any], dict[str, str]]:
    """Press "Sign in with <IdP>": (the page on the way there, the authorization request's query at the IdP)."""
    result = post(browser, [*page.hidden().items(), ("upstream", idp_id)])
    return result, onward_query(result)


def onward_query(result: dict[str, Any]) -> dict[str, str]:
    """The query of the URL the page on the way to the IdP goes on to (its meta refresh)."""
    assert result["statusCode"] == 200, result["body"][:500]
    found = re.search(r'<meta http-equiv="refresh" content="0;url=([^"]+)">', result["body"])
    assert found is not None, result["body"][:800]
    import html

    url = html.unescape(found.group(1))
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def answer(browser: Browser, params: dict[str, str], *, method: str = "GET", path: str = CALLBACK,
           tenant: str | None = None, source_ip: str = "127.0.0.1") -> dict[str, Any]:
    """The IdP's answer arriving in this browser: a GET with a query, or a form POST (the ACS's, Apple's); the browser
    keeps the cookies it sets."""
    headers = [("Host", "127.0.0.1:3000"), ("Accept", "text/html")]
    if browser.cookie:
        headers.append(("Cookie", browser.cookie))
    resource = "/saml/{tenant}/acs" if tenant is not None else path
    if method == "GET":
        request = HttpRequest("GET", path, urlencode(params), headers, source_ip=source_ip)
    else:
        request = HttpRequest("POST", path, "", [*headers, ("Content-Type", "application/x-www-form-urlencoded")],
                              urlencode(params).encode(), source_ip=source_ip)
    event = build_event(request, resource=resource, path_params={"tenant": tenant} if tenant is not None else None)
    result: dict[str, Any] = browser.invoke("authorize", event)
    browser.keep_cookies(result)  # as a browser does: the callback clears the pending sign-in's cookie
    return result


def oidc_answer(provider: ScriptedProvider, query: dict[str, str], **claims: Any) -> dict[str, str]:
    """The provider's answer to the request `query`: its token endpoint set to answer with an ID token of `claims`
    (the request's nonce), and the callback's parameters (code, state, RFC 9207 iss)."""
    provider.answer_token(provider.id_token(nonce=query["nonce"], **claims))
    return {"code": CODE, "state": query["state"], "iss": provider.issuer}


def back_to_flow(browser: Browser, result: dict[str, Any], path: str = "/oauth/authorize") -> dict[str, Any]:
    """The page that brings the answer back, submitted as its script submits it, to the flow's page `path`."""
    page = page_of(result)
    assert page.status == 200, result["body"][:800]
    (form,) = [f for f in page.forms if f.get("id") == "continue-form"]
    assert form["action"] == f"http://127.0.0.1:3000{path}"
    return post(browser, list(page.hidden().items()), path=path)


def tokens_of(invoke: Any, result: dict[str, Any]) -> dict[str, Any]:
    """The tokens of the code the flow's answer `result` redirects demo-web with."""
    redirect = redirect_of(result)
    assert result["statusCode"] == 303
    assert redirect.base == WEB_REDIRECT
    return body_of(TokenClient(invoke).exchange(redirect.one("code")))
