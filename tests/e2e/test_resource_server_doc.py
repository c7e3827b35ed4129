"""docs/resources.md "Protecting your own API": its resource-server code, run as written against `authgate serve`.

The code between the resource-server markers is executed with its four constants pointed at the
running stack and a resource registered by `authgate resources create`; tokens from real token
requests then meet every branch: accepted, another resource's token, missing scope (step-up),
a sign-in too weak or too old (RFC 9470), revoked, no token.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.demo import SECRETS
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import REPO_ROOT, LocalStack

pytestmark = pytest.mark.e2e

RESOURCE = "http://127.0.0.1:9/doc-mcp"
METADATA_URL = "http://127.0.0.1:9/.well-known/oauth-protected-resource/doc-mcp"
SERVICE = ("demo-service", SECRETS["demo-service"])


def snippet() -> str:
    text = Path(REPO_ROOT, "docs", "resources.md").read_text("utf-8")
    block = re.search(r"<!-- resource-server:start -->\n```python\n(.*?)```\n<!-- resource-server:end -->", text, re.DOTALL)
    assert block, "docs/resources.md lost its resource-server block"
    return block.group(1)


def resource_server(base_url: str, creds: tuple[str, str]) -> dict[str, Any]:
    code = snippet()
    for name, value in (("ISSUER", base_url), ("RESOURCE", RESOURCE), ("METADATA_URL", METADATA_URL),
                        ("INTROSPECTION", creds)):
        code, replaced = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", code, count=1, flags=re.MULTILINE)
        assert replaced == 1, name
    namespace: dict[str, Any] = {"__name__": "resource_server_doc"}
    exec(compile(code, "docs/resources.md", "exec"), namespace)  # noqa: S102 - the documented code itself
    return namespace


def token(base_url: str, **fields: str) -> str:
    answer = requests.post(f"{base_url}/oauth/token", data={"grant_type": "client_credentials", **fields},
                           auth=SERVICE, timeout=10)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def refusal(rs: dict[str, Any], authorization: str | None, needs: str) -> tuple[int, str]:
    with pytest.raises(rs["Refused"]) as refused:
        rs["authenticate"](authorization, needs)
    return refused.value.status, refused.value.challenge()


def test_the_documented_resource_server_against_authgate(local_stack: LocalStack) -> None:
    base = local_stack.base_url
    created = admin(local_stack, "resources", "create", RESOURCE, "--scopes", "mcp:read mcp:write", "--json")
    assert created.returncode == 0, created.stderr
    out = json.loads(created.stdout)
    granted = admin(local_stack, "clients", "update", "demo-service", "--resource-scopes",
                    f"{RESOURCE}=mcp:read mcp:write")
    assert granted.returncode == 0, granted.stderr
    rs = resource_server(base, (out["introspection_client_id"], out["introspection_client_secret"]))

    assert rs["protected_resource_metadata"]() == {
        "resource": RESOURCE, "authorization_servers": [base], "scopes_supported": ["mcp:read", "mcp:write"],
        "bearer_methods_supported": ["header"]}

    reader = token(base, resource=RESOURCE, scope="mcp:read")
    claims = rs["authenticate"](f"Bearer {reader}", "mcp:read")
    assert (claims["aud"], claims["scope"], claims["client_id"]) == (RESOURCE, "mcp:read", "demo-service")

    assert refusal(rs, f"Bearer {reader}", "mcp:write") == (
        403, ('Bearer error="insufficient_scope", error_description="This operation needs mcp:write.", '
             f'scope="mcp:write", resource_metadata="{METADATA_URL}"'))
    assert refusal(rs, None, "mcp:read") == (401, f'Bearer resource_metadata="{METADATA_URL}"')
    charges = token(base, scope="charges:read")
    assert refusal(rs, f"Bearer {charges}", "mcp:read") == (
        401, ('Bearer error="invalid_token", error_description="The access token is not valid here.", '
             f'resource_metadata="{METADATA_URL}"'))

    # RFC 9470: a client's own token is not subject; a person's password-only or stale sign-in is challenged.
    rs["require_strong_sign_in"](claims)
    person = {**claims, "sub": "alice", "client_id": "demo-web", "acr": "password", "auth_time": int(time.time())}
    with pytest.raises(rs["Refused"]) as weak:
        rs["require_strong_sign_in"](person)
    assert (weak.value.status, weak.value.challenge()) == (401, (
        'Bearer error="insufficient_user_authentication", error_description="A stronger or more recent sign-in is '
        f'needed.", acr_values="mfa", max_age="300", resource_metadata="{METADATA_URL}"'))
    with pytest.raises(rs["Refused"]):
        rs["require_strong_sign_in"]({**person, "acr": "mfa", "auth_time": int(time.time()) - 301})
    rs["require_strong_sign_in"]({**person, "acr": "mfa", "auth_time": int(time.time()) - 10})

    revoked = requests.post(f"{base}/oauth/revoke", data={"token": reader}, auth=SERVICE, timeout=10)
    assert (revoked.status_code, revoked.json()) == (200, {})
    assert refusal(rs, f"Bearer {reader}", "mcp:read") == (
        401, ('Bearer error="invalid_token", error_description="The access token was revoked.", '
             f'resource_metadata="{METADATA_URL}"'))
    admin(local_stack, "resources", "delete", RESOURCE)
