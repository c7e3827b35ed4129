"""oauth.authorization.consent_page: the login + consent form, escaped, with the page headers and the redirect origin in form-action."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from authgate.http.pages import stylesheet
from authgate.http.response import Response
from authgate.interaction import sign_in_fields
from authgate.interaction.handoff import HandOff
from authgate.interaction.messages import MISSING_CREDENTIALS
from authgate.oauth.authorization import consent_page
from authgate.oauth.authorization.consent_page import redirect_origin
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.oauth.resource_indicator import builtin_resource
from authgate.resources.model import Resource
from authgate.tenants.model import Tenant

AUTH = AuthorizationRequest(client_id="demo-web", tenant_id="demo", redirect_uri="https://app.example:8443/cb?x=1",
                            redirect_uri_sent=True, scopes=("charges:read", "charges:write"), state="s",
                            code_challenge="c", code_challenge_method="S256")
CHARGES = builtin_resource("https://auth.example")
MCP = Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write"), name="Files",
               description="The files of your team.", scope_descriptions=(("mcp:read", "Read your files"),))


def render_consent(*, username: str = "", **given: Any) -> Response:
    """The page with the interaction's sign-in fields (its username `username`) and decision, as answers.form
    gives them."""
    fields = sign_in_fields.fields(HandOff(tenant=Tenant("demo")), username=username)
    return consent_page.render_consent(sign_in=fields, decision=sign_in_fields.decision(), **given)


class Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, dict[str, str | None]] = {}
        self.forms: list[dict[str, str | None]] = []
        self.buttons: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "input":
            self.inputs[str(dict(attrs)["name"])] = dict(attrs)
        elif tag == "form":
            self.forms.append(dict(attrs))
        elif tag == "button":
            self.buttons.append(dict(attrs))


def parsed(body: str) -> Inputs:
    parser = Inputs()
    parser.feed(body)
    return parser


@pytest.mark.parametrize(("uri", "origin"), [
    ("https://app.example/cb", "https://app.example"),
    ("https://app.example:8443/cb?x=1#f", "https://app.example:8443"),
    ("http://127.0.0.1:8765/callback", "http://127.0.0.1:8765"),
    ("https://user:pw@app.example/cb", "https://app.example"),  # userinfo is no part of an origin
    ("com.example.app:/oauth2redirect", "com.example.app:"),    # private-use scheme (RFC 8252 7.1)
])
def test_the_redirect_origin(uri: str, origin: str) -> None:
    assert redirect_origin(uri) == origin


def test_the_page_headers_allow_the_form_to_post_here_and_redirect_to_the_client() -> None:
    response = render_consent(request=AUTH, resource=CHARGES, client_name="Demo Web", tenant_name="Demo Inc.", blob="B", csrf="C")
    assert response.status == 200
    assert response.headers == {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; "
                                   "form-action 'self' https://app.example:8443; frame-ancestors 'none'; "
                                   "base-uri 'none'",
        "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store", "Pragma": "no-cache"}


def test_the_form_carries_the_state_and_the_scopes() -> None:
    body = render_consent(request=AUTH, resource=CHARGES, client_name="Demo Web", tenant_name="Demo Inc.", blob="B.l+o/b=",
                          csrf="C-1").body
    page = parsed(body)
    assert page.forms == [{"method": "post", "action": "authorize", "autocomplete": "on"}]
    assert (page.inputs["request_blob"]["value"], page.inputs["csrf"]["value"]) == ("B.l+o/b=", "C-1")
    assert page.inputs["username"]["value"] == "" and "autofocus" in page.inputs["username"]
    assert "autofocus" not in page.inputs["password"]
    assert [(b["name"], b["value"]) for b in page.buttons] == [("decision", "approve"), ("decision", "deny")]
    assert "<title>Sign in to authorize Demo Web</title>" in body
    assert stylesheet.link() in body
    assert "<li>See your charges <code>charges:read</code></li>" in body
    assert "<li>Create charges <code>charges:write</code></li>" in body
    assert '<span class="origin">https://app.example:8443</span>' in body
    assert 'role="alert"' not in body  # no message


def test_a_reshown_form_keeps_the_username_focuses_the_password_and_says_why() -> None:
    response = render_consent(request=AUTH, resource=CHARGES, client_name="Demo Web", tenant_name="Demo Inc.", blob="B", csrf="C",
                              message=MISSING_CREDENTIALS, username="alice", status=200)
    page = parsed(response.body)
    assert page.inputs["username"]["value"] == "alice" and "autofocus" not in page.inputs["username"]
    assert "autofocus" in page.inputs["password"]
    assert f'<p class="message error" role="alert">{MISSING_CREDENTIALS}</p>' in response.body


def test_a_scope_without_a_description_is_shown_by_its_name_once() -> None:
    body = render_consent(request=AUTH._replace(scopes=("reports:read",)), resource=CHARGES, client_name="c",
                          tenant_name="t", blob="B", csrf="C").body
    assert "<li><code>reports:read</code></li>" in body


def test_the_page_names_the_api_the_token_is_for_and_each_scope_once() -> None:
    body = render_consent(request=AUTH._replace(scopes=("mcp:read", "mcp:write")), resource=MCP,
                          client_name="Agent", tenant_name="Demo Inc.", blob="B", csrf="C").body
    assert ('<p><strong>Agent</strong> is asking for access to <strong>Demo Inc.</strong> in '
            '<strong class="resource">Files</strong>:</p>\n'
            '<p class="resource-about">The files of your team. <code>https://mcp.example.com/mcp</code></p>\n'
            '<ul class="scopes">\n<li>Read your files <code>mcp:read</code></li>\n<li><code>mcp:write</code></li>\n'
            '</ul>') in body
    unnamed = render_consent(request=AUTH._replace(scopes=("mcp:read",)), resource=Resource(MCP.resource, MCP.scopes),
                             client_name="Agent", tenant_name="Demo Inc.", blob="B", csrf="C").body
    assert ('in <strong class="resource">https://mcp.example.com/mcp</strong>:</p>\n\n<ul class="scopes">\n'
            '<li><code>mcp:read</code></li>\n</ul>') in unnamed
    charges = render_consent(request=AUTH, resource=CHARGES, client_name="Web", tenant_name="Demo Inc.",
                             blob="B", csrf="C").body
    assert ('in <strong class="resource">Charges API</strong>:</p>\n<p class="resource-about">Your organisation\'s '
            "charges, refunds and invoices. <code>https://auth.example/charges</code></p>") in html_unescaped(charges)


def html_unescaped(body: str) -> str:
    import html

    return html.unescape(body)


def test_every_value_is_escaped() -> None:
    evil = '"><script>alert(1)</script>'
    resource = Resource(f"https://mcp.example.com/{evil}", (evil,), name=evil, description=evil,
                        scope_descriptions=((evil, evil),))
    response = render_consent(request=AUTH._replace(scopes=(evil,), redirect_uri='https://a.example"x/cb'),
                              resource=resource, client_name=evil, tenant_name=evil, blob=evil, csrf=evil,
                              message=evil, username=evil, status=400)
    assert response.status == 400
    assert "<script>" not in response.body
    page = parsed(response.body)
    assert (page.inputs["request_blob"]["value"], page.inputs["csrf"]["value"], page.inputs["username"]["value"]) == (
        evil, evil, evil)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.body
    # A quote in the origin cannot escape the CSP source list.
    assert response.headers["Content-Security-Policy"].split("; ")[3] == "form-action 'self'"
