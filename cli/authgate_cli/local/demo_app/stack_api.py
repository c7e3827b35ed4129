"""The demo app's calls to the stack: the token and backchannel endpoints, and the charges API."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from authgate_cli.local.demo_app.clients import DemoClient


@dataclass(frozen=True)
class StackApi:
    """The stack at `issuer`, called with the seed's API key when it has one."""

    issuer: str
    api_key: str | None = None

    def post_token(self, client: DemoClient, form: Mapping[str, str], path: str = "/oauth/token") -> tuple[int, Any]:
        # client_secret_basic: id and secret form-urlencoded before Basic (RFC 6749 2.3.1); the token endpoint's
        # client authentication at the backchannel endpoint too (CIBA 7.1).
        basic = base64.b64encode(f"{quote(client.client_id, safe='')}:{quote(client.secret or '', safe='')}"
                                 .encode()).decode("ascii")
        return call(f"{self.issuer}{path}", data=urlencode(form).encode("ascii"),
                    headers={"Authorization": f"Basic {basic}",
                             "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})

    def get_charges(self, access_token: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {access_token}", "Accept": "application/json"}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return call(f"{self.issuer}/charges?limit=5", headers=headers)

    def post_charge(self, access_token: str, charge: Mapping[str, object], idempotency_key: str,
                    challenge: list[str] | None = None) -> tuple[int, Any]:
        """POST /charges; a 401's WWW-Authenticate is appended to `challenge` when given (RFC 9470 3)."""
        headers = {"Authorization": f"Bearer {access_token}", "Accept": "application/json",
                   "Content-Type": "application/json", "Idempotency-Key": idempotency_key}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return call(f"{self.issuer}/charges", data=json.dumps(charge).encode(), headers=headers, challenge=challenge)


def claims_of(jwt: str) -> Any:
    """The payload of a JWS compact serialization, decoded without verification (for display only)."""
    try:
        payload = jwt.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {"note": "not a JWT"}


def call(url: str, *, data: bytes | None = None, headers: Mapping[str, str],
         challenge: list[str] | None = None) -> tuple[int, Any]:
    """(status, JSON body) of a call to the stack; a 401's WWW-Authenticate is appended to `challenge` when given."""
    request = urllib.request.Request(url, data=data, headers=dict(headers), method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as failure:
        status, raw = failure.code, failure.read()
        if challenge is not None:
            challenge.append(failure.headers.get("WWW-Authenticate") or "")
    except OSError as exc:
        return 0, {"error": f"the API did not answer: {exc}"}
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")
