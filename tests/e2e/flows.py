"""End-to-end flows over real HTTP against `authgate serve` with the demo seed.

Each `Flows` has its own ContractSession (every failure response is checked by read_error; a
defect raises ContractViolation) and an optional `on_response` hook that sees every exchange
(the log-hygiene test harvests secrets there; the soak times requests there). Not thread-safe:
one Flows per thread.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

from tests.contract import ContractSession

WEB = ("demo-web", "demo-web-secret", "http://127.0.0.1:8765/callback")
SPA = ("demo-spa", None, "http://127.0.0.1:8765/spa/callback")
API_KEY = "demo-api-key"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


def hidden_fields(page: str) -> dict[str, str]:
    """The hidden fields of an HTML form, their values unescaped as a browser posts them back."""
    return {name: html.unescape(value) for name, value in _HIDDEN.findall(page)}


def pkce_pair() -> tuple[str, str]:
    """A fresh code_verifier and its S256 challenge (RFC 7636 4.1, 4.2)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class Flows:
    def __init__(self, base_url: str, on_response: Callable[[requests.Response], None] | None = None,
                 api_key: str = API_KEY, timeout: float = 30.0) -> None:
        self.session = ContractSession(base_url)
        self.api_key = api_key
        self.timeout = timeout
        if on_response is not None:
            self.session.hooks["response"].append(lambda r, *a, **k: on_response(r))

    def close(self) -> None:
        self.session.close()

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout)
        kwargs.setdefault("allow_redirects", False)
        return self.session.request(method, path, **kwargs)

    # ------------------------------------------------------------------ OAuth
    def client_credentials(self, client: str = "demo-service", secret: str | None = None,
                           scope: str = "charges:read charges:write") -> requests.Response:
        return self.request("POST", "/oauth/token", auth=(client, secret or f"{client}-secret"),
                            data={"grant_type": "client_credentials", "scope": scope})

    def login_page(self, client: tuple[str, str | None, str] = WEB, challenge: str = "",
                   state: str = "st-1", scope: str = "charges:read charges:write") -> requests.Response:
        params = {"response_type": "code", "client_id": client[0], "redirect_uri": client[2], "scope": scope,
                  "state": state, "code_challenge": challenge, "code_challenge_method": "S256"}
        return self.request("GET", "/oauth/authorize", params=params, headers={"Accept": "text/html"})

    def submit_login(self, page: requests.Response, password: str = "alice-password",
                     decision: str = "approve", username: str = "alice") -> requests.Response:
        fields = hidden_fields(page.text)
        fields.update(username=username, password=password, decision=decision)
        return self.request("POST", "/oauth/authorize", data=fields, headers={"Accept": "text/html"})

    def authorize(self, client: tuple[str, str | None, str] = WEB, username: str = "alice",
                  password: str = "alice-password") -> tuple[str, str]:
        """Log in through the form and approve: (code, verifier). Each call signs in afresh: the sign-in
        session of an earlier call would skip the form (single sign-on, docs/oidc.md)."""
        self.session.cookies.pop("authgate_session", None)
        verifier, challenge = pkce_pair()
        page = self.login_page(client, challenge)
        assert page.status_code == 200, page.text[:300]
        redirect = self.submit_login(page, password=password, username=username)
        assert redirect.status_code == 303, redirect.text[:300]
        query = parse_qs(urlsplit(redirect.headers["Location"]).query)
        return query["code"][0], verifier

    def approved(self, params: dict[str, str], client: tuple[str, str | None, str] = WEB,
                 scope: str = "charges:read charges:write") -> dict[str, Any]:
        """alice signs in and approves an authorization request with `params` added; the token response."""
        verifier, challenge = pkce_pair()
        page = self.request("GET", "/oauth/authorize", headers={"Accept": "text/html"}, params={
            "response_type": "code", "client_id": client[0], "redirect_uri": client[2], "scope": scope, "state": "s",
            "code_challenge": challenge, "code_challenge_method": "S256", **params})
        assert page.status_code == 200, page.text[:300]
        redirect = self.submit_login(page)
        assert redirect.status_code == 303, redirect.text[:300]
        code = parse_qs(urlsplit(redirect.headers["Location"]).query)["code"][0]
        token = self.exchange(code, verifier, client)
        assert token.status_code == 200, token.text
        return dict(token.json())

    def exchange(self, code: str, verifier: str, client: tuple[str, str | None, str] = WEB) -> requests.Response:
        data = {"grant_type": "authorization_code", "code": code, "redirect_uri": client[2],
                "code_verifier": verifier}
        return self._oauth("/oauth/token", data, client)

    def refresh(self, token: str, client: tuple[str, str | None, str] = WEB) -> requests.Response:
        return self._oauth("/oauth/token", {"grant_type": "refresh_token", "refresh_token": token}, client)

    def revoke(self, token: str, client: tuple[str, str | None, str] = WEB, hint: str | None = None) -> requests.Response:
        return self._oauth("/oauth/revoke", {"token": token, **({"token_type_hint": hint} if hint else {})}, client)

    def introspect(self, token: str, client: tuple[str, str | None, str] = WEB) -> requests.Response:
        return self._oauth("/oauth/introspect", {"token": token}, client)

    def _oauth(self, path: str, data: dict[str, str], client: tuple[str, str | None, str],
               post_secret: bool = False) -> requests.Response:
        client_id, secret, _ = client
        if secret is None:
            return self.request("POST", path, data={**data, "client_id": client_id})
        if post_secret:
            return self.request("POST", path, data={**data, "client_id": client_id, "client_secret": secret})
        return self.request("POST", path, data=data, auth=(client_id, secret))

    def client_secret_post(self, client: str = "demo-service") -> requests.Response:
        return self._oauth("/oauth/token", {"grant_type": "client_credentials", "scope": "charges:read"},
                           (client, f"{client}-secret", ""), post_secret=True)

    # ------------------------------------------------------------------ charges
    def _api(self, token: str, **extra: str) -> dict[str, str]:
        return {"x-api-key": self.api_key, "Authorization": f"Bearer {token}", **extra}

    def create_charge(self, token: str, key: str | None = None, amount: int = 1050,
                      currency: str = "usd") -> requests.Response:
        headers = self._api(token, **({"Idempotency-Key": key} if key else {}))
        return self.request("POST", "/charges", json={"amount": amount, "currency": currency}, headers=headers)

    def get_charge(self, token: str, charge_id: str) -> requests.Response:
        return self.request("GET", f"/charges/{charge_id}", headers=self._api(token))

    def list_charges(self, token: str, limit: int = 5) -> requests.Response:
        return self.request("GET", "/charges", params={"limit": str(limit)}, headers=self._api(token))
