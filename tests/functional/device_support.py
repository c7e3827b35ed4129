"""The device authorization grant (RFC 8628) as the functional tests drive it: the device authorization request,
its response checked whole, the token endpoint's polls, and the verification page through the authorize function
with the Browser's cookie jar."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import ISSUER
from tests.functional.authorize_support import Browser, Page, page_of
from tests.functional.token_support import OK_HEADERS, TokenClient, body_of, headers_of

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
USER_CODE = re.compile(r"[BCDFGHJKLMNPQRSTVWXZ]{5}-[BCDFGHJKLMNPQRSTVWXZ]{5}")


def authorize_device(tokens: TokenClient, client_id: str = "demo-tv", **params: str) -> dict[str, Any]:
    fields = [("client_id", client_id), *params.items()]
    return tokens.post(fields, path="/oauth/device_authorization")


def started(result: dict[str, Any]) -> dict[str, Any]:
    """The whole 200 device authorization response (RFC 8628 3.2)."""
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    body = body_of(result)
    assert (result["statusCode"], headers) == (200, OK_HEADERS), result["body"]
    assert USER_CODE.fullmatch(body["user_code"]), body
    user_code = body["user_code"]
    assert body == {
        "device_code": body["device_code"], "user_code": user_code,
        "verification_uri": f"{ISSUER}/oauth/device",
        "verification_uri_complete": f"{ISSUER}/oauth/device?user_code={user_code}",
        "expires_in": 600, "interval": 5,
    }
    assert len(body["device_code"]) > 43
    return dict(body)


def poll(tokens: TokenClient, device_code: str, client_id: str = "demo-tv") -> dict[str, Any]:
    return tokens.post([("grant_type", DEVICE_GRANT), ("device_code", device_code), ("client_id", client_id)])


class DevicePage:
    """The verification page through the authorize function, with the Browser's cookie jar."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser

    def _send(self, method: str, query: str = "", fields: list[tuple[str, str]] | None = None,
              source_ip: str = "127.0.0.1") -> dict[str, Any]:
        headers = self.browser._headers([("Content-Type", "application/x-www-form-urlencoded")] if fields else [])
        request = HttpRequest(method, "/oauth/device", query, headers, urlencode(fields or []).encode(),
                              source_ip=source_ip)
        result = self.browser.invoke("authorize", build_event(request, resource="/oauth/device", path_params=None))
        self.browser.keep_cookies(result)
        return result

    def open(self, user_code: str = "") -> Page:
        page = page_of(self._send("GET", urlencode({"user_code": user_code}) if user_code else ""))
        assert page.status == 200
        return page

    def enter(self, user_code: str, source_ip: str = "127.0.0.1") -> Page:
        form = self.open()
        return page_of(self._send("POST", fields=[*form.hidden().items(), ("user_code", user_code)],
                                  source_ip=source_ip))

    def decide(self, page: Page, decision: str, username: str = "", password: str = "") -> Page:
        fields = [*page.hidden().items(), ("decision", decision)]
        if username:
            fields += [("username", username), ("password", password)]
        return page_of(self._send("POST", fields=fields))
