"""`authgate serve --host localhost` (issue 28 item 1; docs/local.md): the stack serves and advertises
http://localhost:PORT as its issuer, its pages and its cookies, so WebAuthn (which refuses IP addresses as
relying-party ids) works on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from tests.e2e.conftest import running_stack
from tests.e2e.flows import hidden_fields

pytestmark = [pytest.mark.e2e]



def test_serve_host_localhost_advertises_localhost(tmp_path: Path) -> None:
    with running_stack(tmp_path, "--host", "localhost") as stack:
        base = f"http://localhost:{stack.port}"
        assert stack.base_url == base
        metadata = requests.get(f"{base}/.well-known/openid-configuration", timeout=10).json()
        assert (metadata["issuer"], metadata["authorization_endpoint"]) == (base, f"{base}/oauth/authorize")
        browser = requests.Session()
        page = browser.get(f"{base}/oauth/authorize", timeout=10, params={
            "response_type": "code", "client_id": "demo-web", "redirect_uri": "http://127.0.0.1:8765/callback",
            "scope": "charges:read", "state": "s1"})
        assert page.status_code == 200
        fields = hidden_fields(page.text)
        done = browser.post(f"{base}/oauth/authorize", allow_redirects=False, timeout=10, data={
            **fields, "username": "alice", "password": "alice-password", "decision": "approve"})
        assert done.status_code == 303
        assert done.headers["Location"].endswith(f"&iss=http%3A%2F%2Flocalhost%3A{stack.port}")
        # A loopback issuer: the session cookie without Secure, host-only, so the browser keeps it on localhost.
        assert re.fullmatch(r"authgate_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=/; Max-Age=43200",
                            done.headers["Set-Cookie"])
