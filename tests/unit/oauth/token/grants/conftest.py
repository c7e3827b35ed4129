"""What the grant tests share: an authenticated client's token request, and the claims of a token."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jwt
import pytest

from authgate.clock import ManualClock
from authgate.oauth.token.grants.base import TokenRequest
from authgate.stores.clients import Client
from tests.demo import ISSUER

SERVICE = Client(client_id="svc", tenant_id="demo", environment="local", client_type="confidential",
                 secret_hash="unused", redirect_uris=(), grant_types=("client_credentials", "refresh_token"),
                 scopes=("charges:read", "charges:write"))
WEB = SERVICE._replace(client_id="web", client_type="public", secret_hash=None,
                       redirect_uris=("http://127.0.0.1:8765/callback",),
                       grant_types=("authorization_code", "refresh_token"))


@pytest.fixture
def token_request(keys: None, clock: ManualClock) -> Callable[..., TokenRequest]:
    """A TokenRequest of `client` with `form`, at the clock's time (a signing key exists)."""

    def make(client: Client, form: Mapping[str, str], **kw: Any) -> TokenRequest:
        return TokenRequest(form=form, client=client, issuer=ISSUER, now=int(clock()), **kw)

    return make


def claims(token: str) -> dict[str, Any]:
    """The access token's claims (its signature is tokens.validator's business, tested there)."""
    decoded: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return decoded
