"""Test support for the Shared Signals transmitter: receivers' tokens, management and poll calls on the token
function, what waits on the deliveries queue, and SETs verified with PyJWT against the published JWK Set."""

from __future__ import annotations

import json
from typing import Any

import jwt

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import ISSUER

SSF_AUDIENCE = f"{ISSUER}/ssf"
SESSION_REVOKED = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
CREDENTIAL_CHANGE = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
ACCOUNT_DISABLED = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
ACCOUNT_ENABLED = "https://schemas.openid.net/secevent/risc/event-type/account-enabled"
ACCOUNT_PURGED = "https://schemas.openid.net/secevent/risc/event-type/account-purged"
VERIFICATION = "https://schemas.openid.net/secevent/ssf/event-type/verification"
SUPPORTED = [SESSION_REVOKED, CREDENTIAL_CHANGE, ACCOUNT_DISABLED, ACCOUNT_ENABLED, ACCOUNT_PURGED]
PUSH, POLL = "urn:ietf:rfc:8935", "urn:ietf:rfc:8936"
ALICE = "usr_demoalice0000000000000"


def receiver_token(client: str = "demo-service", tenant: str = "demo", scope: str = "ssf:manage",
                   audience: str = SSF_AUDIENCE) -> str:
    """An access token of `client` for the management API (the real issuer, the current key)."""
    from authgate.tokens.access_token import issue_access_token

    return issue_access_token(issuer=ISSUER, subject=client, client_id=client, tenant=tenant, scope=scope,
                              audience=audience).token


def ssf_call(invoke: Any, method: str, path: str, body: Any = None, *, token: str | None = "",
             query: str = "", content_type: str | None = "application/json") -> dict[str, Any]:
    """One request to the token function's /ssf routes (or the jwks function's configuration)."""
    headers = [("Host", "127.0.0.1:3000")]
    if token == "":
        token = receiver_token()
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    raw = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    if raw and content_type:
        headers.append(("Content-Type", content_type))
    function = "jwks" if path.startswith("/.well-known") else "token"
    return invoke(function, build_event(HttpRequest(method, path, query, headers, raw), resource=path,
                                        path_params=None))


def answer(result: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    """(status, headers without x-request-id, body parsed as JSON or None when empty)."""
    headers = {k: ", ".join(v) for k, v in result["multiValueHeaders"].items() if k != "x-request-id"}
    return result["statusCode"], headers, json.loads(result["body"]) if result["body"] else None


def queued() -> list[dict[str, Any]]:
    """What waits on the deliveries queue now (received with no visibility timeout: left there)."""
    from authgate import aws
    from authgate.settings import get_settings

    answer = aws.sqs().receive_message(QueueUrl=get_settings().deliveries_queue, MaxNumberOfMessages=10,
                                       VisibilityTimeout=0)
    return [json.loads(m["Body"]) for m in answer.get("Messages") or []]


def deliver_queued() -> int:
    """Run the deliver function on what waits on the queue, as its event source would."""
    from authgate import aws
    from authgate.settings import get_settings
    from authgate_cli.local.deliveries import DeliveryPoller

    return DeliveryPoller(aws.sqs(), get_settings().deliveries_queue).poll_once()


def verified_set(token: str, audience: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, claims) of a SET the published JWK Set verifies (PyJWT, not authgate's code)."""
    from authgate.tokens.jwk_set import jwk_set

    header = jwt.get_unverified_header(token)
    (key,) = [k for k in jwk_set()["keys"] if k["kid"] == header["kid"]]
    claims = jwt.decode(token, jwt.PyJWK(key).key, algorithms=[header["alg"]], audience=audience, issuer=ISSUER,
                        options={"require": ["iss", "aud", "iat", "jti", "events"], "verify_exp": False})
    return header, claims
