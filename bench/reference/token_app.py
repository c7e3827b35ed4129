"""Reference POST /oauth/token (client_credentials) on the usual stack; see bench/reference/__init__.py."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
import uuid
from typing import Any
from urllib.parse import parse_qs, unquote_plus

import boto3
import jwt
from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.logging import correlation_paths

CLIENTS_TABLE = os.environ["AUTHGATE_CLIENTS_TABLE"]
ISSUER = os.environ["AUTHGATE_ISSUER"]
SIGNING_SECRET_ID = os.environ["REFERENCE_SIGNING_SECRET_ID"]
SIGNING_KID = os.environ["REFERENCE_SIGNING_KID"]
TOKEN_TTL = 900

app = APIGatewayRestResolver()
logger = Logger(service="reference-token")
dynamodb = boto3.client("dynamodb")
secretsmanager = boto3.client("secretsmanager")
_private_key: Any = None


def clients() -> dict[str, Any]:
    """The AWS clients this function uses (the bench records and stubs them)."""
    return {"dynamodb": dynamodb, "secretsmanager": secretsmanager}


def oauth_error(status: int, error: str, description: str) -> Response[Any]:
    return Response(status_code=status, content_type="application/json",
                    body={"error": error, "error_description": description},
                    headers={"Cache-Control": "no-store"})


def signing_key() -> Any:
    global _private_key
    if _private_key is None:
        from cryptography.hazmat.primitives.serialization import load_pem_private_key

        pem = secretsmanager.get_secret_value(SecretId=SIGNING_SECRET_ID)["SecretString"]
        _private_key = load_pem_private_key(pem.encode(), password=None)
    return _private_key


@app.post("/oauth/token")
def token() -> Response[Any]:
    form = parse_qs(app.current_event.body or "")
    if form.get("grant_type") != ["client_credentials"]:
        return oauth_error(400, "unsupported_grant_type", "Only client_credentials is supported.")
    auth = app.current_event.headers.get("Authorization") or app.current_event.headers.get("authorization") or ""
    if not auth.startswith("Basic "):
        return oauth_error(401, "invalid_client", "Client authentication failed.")
    client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
    client_id, secret = unquote_plus(client_id), unquote_plus(secret)
    item = dynamodb.get_item(TableName=CLIENTS_TABLE, Key={"client_id": {"S": client_id}}).get("Item")
    stored = item.get("secret_hash", {}).get("S", "") if item else ""
    if not item or not hmac.compare_digest(hashlib.sha256(secret.encode()).hexdigest(), stored):
        return oauth_error(401, "invalid_client", "Client authentication failed.")
    allowed = [s["S"] for s in item.get("scopes", {}).get("L", [])]
    requested = form.get("scope", [" ".join(allowed)])[0].split()
    if any(s not in allowed for s in requested):
        return oauth_error(400, "invalid_scope", "A requested scope is not allowed.")
    now = int(time.time())
    claims = {"iss": ISSUER, "sub": client_id, "aud": ISSUER + "/charges", "exp": now + TOKEN_TTL, "iat": now,
              "jti": uuid.uuid4().hex, "client_id": client_id, "scope": " ".join(requested),
              "tenant": item["tenant_id"]["S"]}
    access_token = jwt.encode(claims, signing_key(), algorithm="RS256", headers={"kid": SIGNING_KID, "typ": "at+jwt"})
    logger.info("token issued", extra={"client_id": client_id})
    return Response(status_code=200, content_type="application/json", headers={"Cache-Control": "no-store"},
                    body={"access_token": access_token, "token_type": "Bearer", "expires_in": TOKEN_TTL,
                          "scope": " ".join(requested)})


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
