"""federation.oidc.token_request: the code redeemed with PKCE and the client authenticated as the provider takes it."""

from __future__ import annotations

import time

import pytest

from authgate.federation import secrets
from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.discovery import discover
from authgate.federation.oidc.token_request import Tokens, redeem
from tests.document_server import DocumentServer
from tests.upstream_oidc import (
    ACCESS_TOKEN,
    CLIENT_ID,
    CLIENT_SECRET,
    CODE,
    CODE_VERIFIER,
    REDIRECT_URI,
    ScriptedProvider,
    basic_credentials,
)

FORM = {"grant_type": "authorization_code", "code": CODE, "redirect_uri": REDIRECT_URI, "code_verifier": CODE_VERIFIER}


def run(op: ScriptedProvider, **fields: object) -> Tokens:
    idp = op.idp(**fields)
    return redeem(idp, discover(idp), code=CODE, redirect_uri=REDIRECT_URI, code_verifier=CODE_VERIFIER,
                  now=int(time.time()))


def test_client_secret_basic_by_default(op: ScriptedProvider) -> None:
    token = op.id_token()
    op.answer_token(token)
    assert run(op) == Tokens(token, ACCESS_TOKEN)
    [(form, headers)] = op.token_requests()
    assert form == FORM
    assert basic_credentials(headers) == (CLIENT_ID, CLIENT_SECRET)
    assert headers["Content-Type"] == "application/x-www-form-urlencoded"


def test_the_basic_credentials_are_form_urlencoded_first(op: ScriptedProvider) -> None:
    """RFC 6749 2.3.1: a secret with ':' or '%' survives the round trip."""
    op.answer_token()
    run(op, client_secret=secrets.seal("demo", op.issuer, "client_secret", "a:b%c d"))
    [(_, headers)] = op.token_requests()
    assert headers["Authorization"] == "Basic YXV0aGdhdGUtY2xpZW50OmElM0FiJTI1YyUyMGQ="
    assert basic_credentials(headers) == (CLIENT_ID, "a:b%c d")


def test_client_secret_post_when_the_provider_takes_only_that(op: ScriptedProvider) -> None:
    op.metadata["token_endpoint_auth_methods_supported"] = ["client_secret_post"]
    op.publish()
    op.answer_token()
    run(op)
    [(form, headers)] = op.token_requests()
    assert form == {**FORM, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
    assert "Authorization" not in headers


@pytest.mark.parametrize(("status", "body", "reason", "internal"), [
    (400, {"error": "invalid_grant"}, "token_refused", "HTTP 400, error 'invalid_grant'"),
    (200, {"access_token": "x"}, "token_invalid", "the token response has no id_token (Core 3.1.3.3)"),
])
def test_a_refused_or_incomplete_answer_is_refused(op: ScriptedProvider, status: int, body: dict[str, str],
                                                   reason: str, internal: str) -> None:
    import json

    from tests.document_server import Route

    op.server.post_answers[f"/{op.name}/token"] = [Route(json.dumps(body).encode(), status)]
    with pytest.raises(UpstreamRefused) as caught:
        run(op)
    assert (caught.value.reason, caught.value.internal) == (reason, internal)


def test_a_secret_sealed_for_another_record_does_not_open(op: ScriptedProvider) -> None:
    op.answer_token()
    with pytest.raises(UpstreamRefused) as caught:
        run(op, client_secret=secrets.seal("acme", op.issuer, "client_secret", CLIENT_SECRET))
    assert caught.value.reason == "client_secret_unreadable"
    assert op.token_requests() == []


def test_an_unreachable_token_endpoint(op: ScriptedProvider, trusted: DocumentServer) -> None:
    op.metadata["token_endpoint"] = "https://127.0.0.1:9/token"
    op.publish()
    with pytest.raises(UpstreamRefused) as caught:
        run(op)
    assert caught.value.reason == "token_unavailable"
    assert caught.value.internal == "https://127.0.0.1:9/token: connection failed (ConnectionRefusedError)"
