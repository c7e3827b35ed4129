"""Driving the authorize function in-process: events from raw query strings, the form, parsed redirects."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
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


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[dict[str, str | None]] = []
        self.buttons: list[dict[str, str | None]] = []
        self.forms: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "input":
            self.inputs.append(dict(attrs))
        elif tag == "button":
            self.buttons.append(dict(attrs))
        elif tag == "form":
            self.forms.append(dict(attrs))


@dataclass
class Page:
    status: int
    headers: dict[str, str]
    body: str
    inputs: list[dict[str, str | None]] = field(default_factory=list)
    buttons: list[dict[str, str | None]] = field(default_factory=list)
    forms: list[dict[str, str | None]] = field(default_factory=list)

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
    return Page(result["statusCode"], headers_of(result), result["body"], parser.inputs, parser.buttons, parser.forms)


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

    def get_raw(self, raw_query: str, source_ip: str = "127.0.0.1") -> dict[str, Any]:
        request = HttpRequest("GET", "/oauth/authorize", raw_query, self._headers(), source_ip=source_ip)
        result = self.invoke("authorize", build_event(request, resource="/oauth/authorize", path_params=None))
        cookie = headers_of(result).get("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return result

    def get(self, params: list[tuple[str, str]], source_ip: str = "127.0.0.1") -> dict[str, Any]:
        return self.get_raw(urlencode(params), source_ip)

    def post(self, fields: list[tuple[str, str]], content_type: str = "application/x-www-form-urlencoded",
             body: bytes | None = None) -> dict[str, Any]:
        data = urlencode(fields).encode() if body is None else body
        request = HttpRequest("POST", "/oauth/authorize", "", self._headers([("Content-Type", content_type)]), data)
        return self.invoke("authorize", build_event(request, resource="/oauth/authorize", path_params=None))

    def submit(self, page: Page, decision: str = "approve", username: str = "alice",
               password: str = "alice-password") -> dict[str, Any]:
        fields = list(page.hidden().items()) + [("username", username), ("password", password)]
        if decision:
            fields.append(("decision", decision))
        return self.post(fields)
