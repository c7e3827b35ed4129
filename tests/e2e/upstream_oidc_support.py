"""panva's oidc-provider as an upstream OpenID Provider (tests/e2e/oidc_provider/provider.mjs), and a person signing
in there: a real HTTP client through its login page to the redirect back to authgate, captured, never followed."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

import requests

from tests.e2e.conftest import REPO_ROOT

PROVIDER_DIR = REPO_ROOT / "tests" / "e2e" / "oidc_provider"
CLIENT_ID = "authgate"
CLIENT_SECRET = "interop-client-secret-0123456789"
REDIRECT_URI = "http://127.0.0.1:3000/oauth/federation/callback"
POST_LOGOUT_URI = "http://127.0.0.1:3000/oauth/federation/logged-out"


@dataclass
class UpstreamProvider:
    issuer: str
    ca: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        """What the provider printed (its errors, e.g. a back-channel logout call that failed)."""
        return self.log_path.read_text("utf-8", errors="replace")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def client(client_id: str = CLIENT_ID, secret: str = CLIENT_SECRET, **more: Any) -> dict[str, Any]:
    """A client registration at the provider: authgate's callback, client_secret_basic."""
    return {"client_id": client_id, "client_secret": secret, "redirect_uris": [REDIRECT_URI],
            "post_logout_redirect_uris": [POST_LOGOUT_URI], "token_endpoint_auth_method": "client_secret_basic",
            "grant_types": ["authorization_code"], "response_types": ["code"], **more}


@contextmanager
def oidc_provider(ca: Path, cert: Path, key: Path, clients: list[dict[str, Any]]) -> Iterator[UpstreamProvider]:
    """oidc-provider on https://127.0.0.1:<free port>, its certificate signed by the test CA `ca`."""
    port = free_port()
    env = {**os.environ, "PORT": str(port), "TLS_CERT": str(cert), "TLS_KEY": str(key),
           "CLIENTS": json.dumps(clients), "NODE_EXTRA_CA_CERTS": str(ca)}
    log_path = cert.parent / f"oidc-provider-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(["node", str(PROVIDER_DIR / "provider.mjs")], cwd=PROVIDER_DIR, env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
    started = UpstreamProvider(f"https://127.0.0.1:{port}", ca, process, log_path)
    try:
        deadline = time.monotonic() + 30
        while "listening " not in started.log():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("oidc-provider did not start:\n" + started.log())
            time.sleep(0.1)
        yield started
    finally:
        process.terminate()
        process.wait(timeout=10)


def act_as_relying_party(ca: Path, monkeypatch: Any) -> None:
    """authgate's relying party in this process: the test CA trusted, loopback allowed (the local stack's
    exception), a sealing key; caches emptied so that each takes effect."""
    from authgate import caches

    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    monkeypatch.setenv("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", "true")
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "interop-sealing-key-" + "k" * 40)
    caches.reset()


class Browser:
    """A person's browser at the provider: a cookie jar that follows the provider's own redirects and stops at
    the first one that leaves it (the redirect back to authgate, or any other site), whose URL it returns."""

    def __init__(self, provider: UpstreamProvider) -> None:
        self.provider = provider
        self.session = requests.Session()

    def visit(self, url: str, *, data: dict[str, str] | None = None) -> tuple[str, requests.Response]:
        """GET `url` (POST `data`), following redirects within the provider: (where it left for, or "", the last page)."""
        method = "POST" if data is not None else "GET"
        for _ in range(10):
            # verify per request: an environment's REQUESTS_CA_BUNDLE would override a session's.
            response = self.session.request(method, url, data=data, allow_redirects=False, timeout=10,
                                            verify=str(self.provider.ca))
            location = response.headers.get("Location")
            if response.status_code not in (302, 303) or not location:
                return "", response
            url = urljoin(url, location)
            if not url.startswith(self.provider.issuer + "/"):
                return url, response
            method, data = "GET", None
        raise AssertionError("more than 10 redirects at the provider")

    def sign_in(self, authorization_url: str, login: str) -> dict[str, str]:
        """Through the login page as `login`; the parameters of the redirect back to authgate's callback."""
        left, page = self.visit(authorization_url)
        if not left:
            assert page.status_code == 200 and 'name="login"' in page.text, page.text[:500]
            action = page.text.split('action="', 1)[1].split('"', 1)[0]
            left, page = self.visit(urljoin(self.provider.issuer, action), data={"login": login})
        assert left.startswith(REDIRECT_URI + "?"), (left, page.status_code, page.text[:500])
        return dict(parse_qsl(urlsplit(left).query))

    def log_out(self, end_session_url: str) -> str:
        """Through the provider's logout confirmation; where it sends the browser after."""
        left, page = self.visit(end_session_url)
        assert page.status_code == 200 and "xsrf" in page.text, page.text[:500]
        action = page.text.split('action="', 1)[1].split('"', 1)[0]
        xsrf = page.text.split('name="xsrf" value="', 1)[1].split('"', 1)[0]
        left, _ = self.visit(urljoin(self.provider.issuer, action), data={"xsrf": xsrf, "logout": "yes"})
        return left
