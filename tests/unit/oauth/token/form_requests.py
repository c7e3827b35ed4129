"""Requests for the OAuth endpoints' request-level functions: the event the local gateway builds, as a Request,
and the token and revocation calls the revocation and introspection tests share."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from authgate.http.request import Request
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import SECRETS, VERIFIER, WEB_REDIRECT
from tests.functional.token_support import FORM, basic, new_code


def form_request(path: str, fields: list[tuple[str, str]], *, client_id: str | None = None,
                 headers: list[tuple[str, str]] | None = None, content_type: str = FORM) -> Request:
    """A form POST to `path`; `client_id` authenticates with Basic and its demo secret (or, public, in the form)."""
    hdrs = [("Host", "127.0.0.1:3000"), ("Content-Type", content_type), *(headers or [])]
    if client_id in SECRETS:
        hdrs.append(("Authorization", basic(client_id, SECRETS[client_id])))
    elif client_id is not None:
        fields = [*fields, ("client_id", client_id)]
    raw = HttpRequest("POST", path, "", hdrs, urlencode(fields).encode())
    return Request.from_event(build_event(raw, resource=path, path_params=None))


def tokens_of_demo_web() -> dict[str, str]:
    """An access and a refresh token of one grant, from the real token endpoint."""
    from authgate.oauth.token.endpoint import post_token

    response = post_token(form_request("/oauth/token", [
        ("grant_type", "authorization_code"), ("code", new_code()), ("redirect_uri", WEB_REDIRECT),
        ("code_verifier", VERIFIER)], client_id="demo-web"))
    return json.loads(response.body)  # type: ignore[no-any-return]


def revoke(token: str, client_id: str = "demo-web", hint: str | None = None) -> tuple[int, dict[str, str], object]:
    """POST /oauth/revoke (RFC 7009 2.1) as `client_id`: status, headers and the parsed body."""
    from authgate.oauth.token.revocation import post_revoke

    fields = [("token", token)] + ([("token_type_hint", hint)] if hint else [])
    response = post_revoke(form_request("/oauth/revoke", fields, client_id=client_id))
    return response.status, response.headers, json.loads(response.body)
