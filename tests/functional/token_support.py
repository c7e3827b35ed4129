"""Driving the token function in-process: form posts, Basic credentials, codes, parsed results."""

from __future__ import annotations

import base64
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any
from urllib.parse import quote_plus, urlencode

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import CHALLENGE, ISSUER, SECRETS, VERIFIER, WEB_REDIRECT

FORM = "application/x-www-form-urlencoded"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
BASIC_CHALLENGE = 'Basic realm="oauth"'


def basic(client_id: str, secret: str) -> str:
    """RFC 6749 2.3.1: each part form-urlencoded, then Basic."""
    raw = f"{quote_plus(client_id)}:{quote_plus(secret)}".encode()
    return "Basic " + base64.b64encode(raw).decode()


def headers_of(result: dict[str, Any]) -> dict[str, str]:
    return {k: ", ".join(v) for k, v in (result.get("multiValueHeaders") or {}).items()}


def body_of(result: dict[str, Any]) -> Any:
    return json.loads(result["body"]) if result["body"] else None


def oauth_error(result: dict[str, Any]) -> tuple[int, str]:
    return result["statusCode"], body_of(result)["error"]


def assert_error(result: dict[str, Any], status: int, error: str, description: str,
                 extra_headers: dict[str, str] | None = None, code: str | None = None) -> None:
    """The whole RFC 6749 5.2 response: status, exactly these headers, exactly this body.

    `code` is the application code behind the OAuth error when they differ (error_uri names it).
    """
    headers = headers_of(result)
    request_id = headers.pop("x-request-id")
    assert request_id
    assert (result["statusCode"], headers, body_of(result)) == (
        status,
        {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache",
         **(extra_headers or {})},
        {"error": error, "error_description": description, "error_uri": f"{ISSUER}/problems/{code or error}"},
    )


def assert_invalid_client(result: dict[str, Any], description: str = "Client authentication failed.") -> None:
    assert_error(result, 401, "invalid_client", description, {"WWW-Authenticate": BASIC_CHALLENGE})


def claims_of(token: str) -> dict[str, Any]:
    """The claims of a JWT, decoded without verifying it (the tests check what the server signed)."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


OK_HEADERS = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}


def assert_ok(result: dict[str, Any], body: dict[str, Any]) -> None:
    """A whole 200 JSON response of the token function: its headers and exactly this body."""
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    assert (result["statusCode"], headers, body_of(result)) == (200, OK_HEADERS, body)


# A request_uri of a pushed authorization request (RFC 9126 2.2): 256 random bits, base64url.
REQUEST_URI = re.compile(r"urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}")


def push(tokens: TokenClient, params: list[tuple[str, str]], client_id: str = "demo-web") -> dict[str, Any]:
    """POST /oauth/par as demo-web (Basic) or a public client (client_id in the form)."""
    fields = [(k, v) for k, v in params if k != "client_id" or client_id not in SECRETS]
    if client_id in SECRETS:
        return tokens.post(fields, path="/oauth/par", auth=basic(client_id, SECRETS[client_id]))
    return tokens.post(fields, path="/oauth/par")


def pushed_uri(result: dict[str, Any]) -> str:
    """The request_uri of a whole 201 push response (RFC 9126 2.2)."""
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    body = body_of(result)
    assert (result["statusCode"], headers) == (201, {"Content-Type": "application/json", "Cache-Control": "no-store",
                                                     "Pragma": "no-cache"})
    assert set(body) == {"request_uri", "expires_in"} and body["expires_in"] == 60
    assert REQUEST_URI.fullmatch(body["request_uri"]), body
    return str(body["request_uri"])


class TokenClient:
    """POSTs to /oauth/token, /oauth/revoke, /oauth/introspect through the token handler."""

    def __init__(self, invoke: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        self.invoke = invoke

    def post(self, fields: list[tuple[str, str]] | dict[str, str] | None = None, *, path: str = "/oauth/token",
             auth: str | None = None, body: bytes | None = None, content_type: str | None = FORM,
             headers: list[tuple[str, str]] | None = None, raw_query: str = "", method: str = "POST",
             source_ip: str = "127.0.0.1") -> dict[str, Any]:
        if isinstance(fields, dict):
            fields = list(fields.items())
        data = body if body is not None else urlencode(fields or []).encode()
        hdrs = [("Host", "127.0.0.1:3000")] + (headers or [])
        if content_type:
            hdrs.append(("Content-Type", content_type))
        if auth:
            hdrs.append(("Authorization", auth))
        request = HttpRequest(method, path, raw_query, hdrs, data, source_ip=source_ip)
        return self.invoke("token", build_event(request, resource=path, path_params=None))

    def as_client(self, client_id: str, fields: list[tuple[str, str]], path: str = "/oauth/token") -> dict[str, Any]:
        """POST as `client_id`: Basic with its secret when it has one, else client_id in the form (public)."""
        if client_id in SECRETS:
            return self.post(fields, path=path, auth=basic(client_id, SECRETS[client_id]))
        return self.post(fields + [("client_id", client_id)], path=path)

    def client_credentials(self, client_id: str = "demo-service", scope: str | None = None,
                           **kwargs: Any) -> dict[str, Any]:
        fields = [("grant_type", "client_credentials")] + ([("scope", scope)] if scope else [])
        return self.post(fields, auth=basic(client_id, SECRETS[client_id]), **kwargs)

    def exchange(self, code: str, *, client_id: str = "demo-web", redirect_uri: str = WEB_REDIRECT,
                 verifier: str | None = VERIFIER) -> dict[str, Any]:
        fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect_uri)]
        if verifier:
            fields.append(("code_verifier", verifier))
        return self.as_client(client_id, fields)

    def refresh(self, refresh_token: str, *, client_id: str = "demo-web", scope: str | None = None) -> dict[str, Any]:
        fields = [("grant_type", "refresh_token"), ("refresh_token", refresh_token)]
        if scope:
            fields.append(("scope", scope))
        return self.as_client(client_id, fields)

    def revoke(self, token: str, *, client_id: str = "demo-web", hint: str | None = None) -> dict[str, Any]:
        fields = [("token", token)] + ([("token_type_hint", hint)] if hint else [])
        return self.as_client(client_id, fields, path="/oauth/revoke")

    def introspect(self, token: str, *, client_id: str = "demo-web", hint: str | None = None) -> dict[str, Any]:
        fields = [("token", token)] + ([("token_type_hint", hint)] if hint else [])
        return self.as_client(client_id, fields, path="/oauth/introspect")


def new_code(*, client_id: str = "demo-web", redirect_uri: str | None = WEB_REDIRECT,
             challenge: str = CHALLENGE, scope: str = "charges:read charges:write", ttl: int | None = None,
             redirect_uri_sent: bool = True) -> str:
    """A code as the authorize endpoint stores it (through the real CodeStore): alice's, with her sign-in (her
    password, now)."""
    from authgate import clock
    from authgate.single_use.authentication import Authentication
    from authgate.stores.codes import CodeStore

    return CodeStore().create(client_id=client_id, tenant_id="demo", redirect_uri=redirect_uri,
                              code_challenge=challenge, code_challenge_method="S256" if challenge else "",
                              scope=scope, subject="alice", ttl=ttl, redirect_uri_sent=redirect_uri_sent,
                              authentication=Authentication(user_id_of("alice"), clock.seconds()))


def user_id_of(username: str, tenant_id: str = "demo") -> str:
    """The user_id of a user of the demo stack: the `sub` of their tokens."""
    from authgate.stores.users import UserStore

    user = UserStore().get(tenant_id, username)
    assert user is not None and user.user_id
    return user.user_id


def allow_grant(client_id: str, grant_type: str) -> None:
    """What `authgate clients update CLIENT --grant GRANT` writes (the client's other grants kept)."""
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(client_id)
    assert client is not None
    store.replace(client._replace(grant_types=(*client.grant_types, grant_type)))


def dynamodb_calls() -> AbstractContextManager[Counter[str]]:
    """The DynamoDB calls made inside the block, by operation name (botocore event hooks)."""
    return aws_calls("dynamodb")


@contextmanager
def aws_calls(service: str) -> Iterator[Counter[str]]:
    """The calls to `service` ("dynamodb", "sqs") made inside the block, by operation name (botocore event hooks)."""
    from authgate import aws

    seen: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        seen[model.name] += 1

    client = getattr(aws, service)()
    client.meta.events.register(f"before-call.{service}", count)
    try:
        yield seen
    finally:
        client.meta.events.unregister(f"before-call.{service}", count)


def grant(client_id: str, uri: str, scopes: tuple[str, ...]) -> None:
    """What `authgate clients update CLIENT --resource-scopes "URI=SCOPES"` writes: the client's grant of a
    registered resource's scopes (least privilege for client_credentials)."""
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(client_id)
    assert client is not None
    others = tuple(pair for pair in client.resource_scopes if pair[0] != uri)
    store.replace(client._replace(resource_scopes=tuple(sorted((*others, (uri, scopes))))))
