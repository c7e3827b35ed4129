"""Requests for the OAuth endpoints' request-level functions: the event the local gateway builds, as a Request."""

from __future__ import annotations

from urllib.parse import urlencode

from authgate.http.request import Request
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import SECRETS
from tests.functional.token_support import FORM, basic


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
