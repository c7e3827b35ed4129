"""What a report may show of a request or an answer: never a credential (contract 5 rule 7).

Request headers that carry credentials, and every header the user passed with --header, are
replaced by "[redacted]". Answer excerpts keep error members (`code`, `error`, `detail`) but
mask token members and anything shaped like a JWS. The runtime's log redactor is not reused:
it masks `code` (the OAuth authorization code), which in an error body is the very thing a
report must show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[redacted]"
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
                                "x-amz-security-token"})
_SECRET_MEMBERS = frozenset({"access_token", "refresh_token", "id_token", "client_secret", "password",
                             "code_verifier", "assertion", "client_assertion", "d", "p", "q", "dp", "dq",
                             "qi", "k", "private_key"})
_JWS = re.compile(r"eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*")
_QUOTED_SECRET = re.compile(
    r'("(?:' + "|".join(sorted(_SECRET_MEMBERS, key=len, reverse=True)) + r')"\s*:\s*)"(?:\\.|[^"\\])*"')
EXCERPT_CHARS = 300


def request_headers(headers: Iterable[tuple[str, str]], secret: frozenset[str] = frozenset()) -> dict[str, str]:
    """Request headers for a report, credential values masked; `secret`: lower-case names to mask too."""
    shown: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        masked = key in CREDENTIAL_HEADERS or key in secret
        shown[key] = REDACTED if masked else value
    return shown


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (REDACTED if k in _SECRET_MEMBERS and v not in (None, "") else _mask(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    if isinstance(value, str):
        return _JWS.sub(REDACTED, value)
    return value


def body_excerpt(body: bytes, limit: int = EXCERPT_CHARS) -> str:
    """The start of an answer's body as text, credentials masked, on one line."""
    text = body.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        text = _JWS.sub(REDACTED, _QUOTED_SECRET.sub(lambda m: f'{m.group(1)}"{REDACTED}"', text))
    else:
        text = json.dumps(_mask(data), separators=(",", ":"), ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
