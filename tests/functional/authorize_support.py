"""Driving the authorize function in-process: events from raw query strings, the form, parsed redirects."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlencode, urlsplit

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import CHALLENGE, WEB_REDIRECT

PAGE_HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def web_params(**overrides: str | None) -> list[tuple[str, str]]:
    """A valid request of demo-web with PKCE; an override of None drops the parameter."""
    base = {"response_type": "code", "client_id": "demo-web", "redirect_uri": WEB_REDIRECT,
            "scope": "charges:read charges:write", "state": "xyz-state",
            "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
    base.update(overrides)
    return [(k, v) for k, v in base.items() if v is not None]


def headers_of(result: dict[str, Any]) -> dict[str, str]:
    """Single-valued view of a proxy result's headers (Set-Cookie joined)."""
    return {k: ", ".join(v) for k, v in (result.get("multiValueHeaders") or {}).items()}


def put_client(**fields: Any) -> None:
    """A confidential authorization_code client named X in tenant demo, with `fields` changed."""
    from authgate.clients.model import Client
    from authgate.stores.clients import ClientStore

    base: dict[str, Any] = {"client_id": "x", "tenant_id": "demo", "environment": "local",
                            "client_type": "confidential", "secret_hash": "0" * 64, "redirect_uris": (),
                            "grant_types": ("authorization_code",), "scopes": ("charges:read",), "name": "X"}
    base.update(fields)
    ClientStore().put(Client(**base))


def without_request_id(result: dict[str, Any]) -> dict[str, str]:
    """Every header of a proxy result but x-request-id (fresh on each request)."""
    return {k: v for k, v in headers_of(result).items() if k != "x-request-id"}


# An error page loads the shared stylesheet and nothing else, and has no form.
ERROR_PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; "
                  "frame-ancestors 'none'; base-uri 'none'")


# Each page's application code -> the contract's table 7.1 (RFC 6749 4.1.2.1) code the page names.
PAGE_OAUTH_ERRORS = {
    "invalid_request": "invalid_request",
    "client_of_another_environment": "unauthorized_client",
    "unknown_client": "invalid_request",
    "redirect_uri_mismatch": "invalid_request",
    "invalid_request_uri": "invalid_request",
    "service_unavailable": "temporarily_unavailable",
    # Clients that register themselves (docs/agents.md): the page names invalid_client.
    "client_metadata_url_invalid": "invalid_client",
    "client_metadata_address_refused": "invalid_client",
    "client_metadata_unreachable": "invalid_client",
    "client_metadata_redirected": "invalid_client",
    "client_metadata_too_large": "invalid_client",
    "client_metadata_invalid": "invalid_client",
    "client_metadata_client_id_mismatch": "invalid_client",
    "client_metadata_not_allowed": "invalid_client",
    "registered_client_not_allowed": "invalid_client",
    # The approval page of a backchannel request (docs/ciba.md).
    "approval_link_invalid": "invalid_request",
    "approval_wrong_user": "invalid_request",
    # An identity provider's answer to a sign-in (docs/federation.md).
    "upstream_sign_in_failed": "invalid_request",
}


def assert_error_page(result: dict[str, Any], code: str, detail: str, status: int = 400) -> None:
    """The whole error page: status, headers, and its body (title, detail, code, request id)."""
    from authgate.errors.catalogue import lookup

    headers = without_request_id(result)
    assert "Location" not in headers
    assert headers == {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                       "Pragma": "no-cache", "Content-Security-Policy": ERROR_PAGE_CSP, "X-Frame-Options": "DENY",
                       "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                       **({"Retry-After": "1"} if status == 503 else {})}
    assert result["statusCode"] == status
    request_id = headers_of(result)["x-request-id"]
    title = lookup(code).title
    # The contract's table 7.1 code beside any finer one (RFC 6749 4.1.2.1's codes).
    oauth = PAGE_OAUTH_ERRORS[code]
    named = "" if oauth == code else f" · OAuth error {oauth}"
    assert page_of(result).text() == (
        f"{title} {detail} Error code: {code}{named} · request id {request_id}")


# Differs from the registered http://127.0.0.1:8765/callback by one detail each (RFC 9700 4.1.3).
OPEN_REDIRECT_MATRIX = [
    "http://127.0.0.1:8765/callback/",            # trailing slash
    "https://127.0.0.1:8765/callback",            # scheme
    "HTTP://127.0.0.1:8765/callback",             # scheme case
    "http://127.0.0.1:8766/callback",             # port
    "http://127.0.0.1/callback",                  # default port
    "http://127.0.0.1:08765/callback",            # port spelling
    "http://localhost:8765/callback",             # host
    "http://127.0.0.2:8765/callback",             # host
    "http://127.0.0.1.evil.example:8765/callback",  # host suffix
    "http://127.0.0.1:8765/Callback",             # path case
    "http://127.0.0.1:8765/callback/../callback",  # dot segments
    "http://127.0.0.1:8765//callback",            # empty segment
    "http://127.0.0.1:8765/callback?x=1",         # extra query
    "http://127.0.0.1:8765/callback?",            # empty query
    "http://127.0.0.1:8765/callback#frag",        # fragment
    "http://127.0.0.1:8765/callback#",            # empty fragment
    "http://user@127.0.0.1:8765/callback",        # userinfo
    "http://127.0.0.1:8765@evil.example/callback",  # userinfo trick
    "http://127.0.0.1:8765/%63allback",           # percent-encoded unreserved
    "http://127.0.0.1:8765/callback%2F",          # encoded slash
    "http://127.0.0.1:8765/callback%00",          # encoded NUL
    "http://xn--127-0-0-1-r5a.example:8765/callback",  # IDN (punycode look-alike)
    "http://127.0.0.1:8765/callbäck",             # IDN / non-ASCII path
    " http://127.0.0.1:8765/callback",            # leading space
    "http://127.0.0.1:8765/callback ",            # trailing space
    "//127.0.0.1:8765/callback",                  # scheme-relative
    "http:/127.0.0.1:8765/callback",              # one slash
    "http://[::ffff:127.0.0.1]:8765/callback",    # IPv6-mapped
    "http://2130706433:8765/callback",            # decimal IP
]


@dataclass
class Redirect:
    base: str
    params: dict[str, list[str]]

    def one(self, name: str) -> str:
        (value,) = self.params[name]
        return value


def redirect_of(result: dict[str, Any]) -> Redirect:
    # 302 from GET, 303 from the form's POST (test_authorize pins which is which).
    assert result["statusCode"] in (302, 303), (result["statusCode"], result["body"][:500])
    location = headers_of(result)["Location"]
    parts = urlsplit(location)
    return Redirect(f"{parts.scheme}://{parts.netloc}{parts.path}", parse_qs(parts.query, keep_blank_values=True))


class Message(NamedTuple):
    """A paragraph a page draws as a message (class "message") or announces (role alert or status)."""

    role: str
    css: str
    text: str
    hidden: bool = False


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[dict[str, str | None]] = []
        self.buttons: list[dict[str, str | None]] = []
        self.forms: list[dict[str, str | None]] = []
        self.messages: list[Message] = []
        self._message: tuple[dict[str, str | None], list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "input":
            self.inputs.append(named)
        elif tag == "button":
            self.buttons.append(named)
        elif tag == "form":
            self.forms.append(named)
        elif tag == "p" and ("message" in (named.get("class") or "").split() or named.get("role")):
            self._message = (named, [])

    def handle_data(self, data: str) -> None:
        if self._message is not None:
            self._message[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._message is not None:
            named, text = self._message
            self.messages.append(Message(named.get("role") or "", named.get("class") or "",
                                         " ".join("".join(text).split()), "hidden" in named))
            self._message = None


@dataclass
class Page:
    status: int
    headers: dict[str, str]
    body: str
    inputs: list[dict[str, str | None]] = field(default_factory=list)
    buttons: list[dict[str, str | None]] = field(default_factory=list)
    forms: list[dict[str, str | None]] = field(default_factory=list)
    # Every message paragraph, in page order (drawn or announced; `hidden` ones are neither until shown).
    messages: list[Message] = field(default_factory=list)

    def hidden(self) -> dict[str, str]:
        return {str(i["name"]): str(i.get("value") or "") for i in self.inputs if i.get("type") == "hidden"}

    def cookie(self) -> str | None:
        raw = self.headers.get("Set-Cookie")
        return raw.split(";", 1)[0] if raw else None

    def text(self) -> str:
        visible = re.sub(r"<(style|title)>.*?</\1>", " ", self.body, flags=re.DOTALL)
        return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", visible)).strip())


def page_of(result: dict[str, Any]) -> Page:
    parser = _FormParser()
    parser.feed(result["body"])
    return Page(result["statusCode"], headers_of(result), result["body"], parser.inputs, parser.buttons, parser.forms,
                parser.messages)


class Browser:
    """Just enough of a browser for the in-process handler: one cookie, the form, redirects."""

    def __init__(self, invoke: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        self.invoke = invoke
        self.cookie: str | None = None

    def _headers(self, extra: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
        headers = [("Host", "127.0.0.1:3000"), ("Accept", "text/html")] + (extra or [])
        if self.cookie:
            headers.append(("Cookie", self.cookie))
        return headers

    def get_raw(self, raw_query: str, source_ip: str = "127.0.0.1", path: str = "/oauth/authorize") -> dict[str, Any]:
        request = HttpRequest("GET", path, raw_query, self._headers(), source_ip=source_ip)
        result = self.invoke("authorize", build_event(request, resource=path, path_params=None))
        self.keep_cookies(result)
        return result

    def keep_cookies(self, result: dict[str, Any]) -> None:
        """Store each cookie the response sets, replacing only the one of the same name (a cookie jar)."""
        jar = dict(part.split("=", 1) for part in (self.cookie or "").split("; ") if "=" in part)
        for set_cookie in (result.get("multiValueHeaders") or {}).get("Set-Cookie", []):
            name, _, value = set_cookie.split(";", 1)[0].partition("=")
            jar[name] = value
        self.cookie = "; ".join(f"{name}={value}" for name, value in jar.items()) or None

    def get(self, params: list[tuple[str, str]], source_ip: str = "127.0.0.1") -> dict[str, Any]:
        return self.get_raw(urlencode(params), source_ip)

    def post(self, fields: list[tuple[str, str]], content_type: str = "application/x-www-form-urlencoded",
             body: bytes | None = None, path: str = "/oauth/authorize") -> dict[str, Any]:
        data = urlencode(fields).encode() if body is None else body
        request = HttpRequest("POST", path, "", self._headers([("Content-Type", content_type)]), data)
        return self.invoke("authorize", build_event(request, resource=path, path_params=None))

    def submit(self, page: Page, decision: str = "approve", username: str = "alice",
               password: str = "alice-password") -> dict[str, Any]:
        fields = list(page.hidden().items()) + [("username", username), ("password", password)]
        if decision:
            fields.append(("decision", decision))
        return self.post(fields)
