"""GET a JSON document from a URL someone else chose: an identity provider's discovery document, keys, userinfo.

Under every rule of authgate.outbound.exchange (https, or loopback http on the local stack only;
the host resolved once and every address checked; TLS verified; time and bytes bounded). Only a
200 with a JSON media type (application/json or application/<x>+json) whose body is one strict
JSON object (authgate.strict_json) is a document; a redirect is never followed. Anything else is `Unavailable`, whose
`internal` says what happened (for logs: never a token, the request's headers are not in it).
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any

from authgate import strict_json
from authgate.outbound.connection import Limits, Resolver, Unreachable, system_resolver
from authgate.outbound.exchange import BadUrl, TooLarge, exchange, loopback_allowed, target

USER_AGENT = "authgate (outbound)"


class Unavailable(Exception):
    """No document could be had; `internal` says why (logs only)."""

    def __init__(self, internal: str) -> None:
        super().__init__(internal)
        self.internal = internal


def fetch_json(url: str, *, limits: Limits, accept: str = "application/json", headers: Mapping[str, str] | None = None,
               resolver: Resolver = system_resolver, context: ssl.SSLContext | None = None) -> dict[str, Any]:
    """The JSON object served at `url` (with `headers`, e.g. a bearer token), or Unavailable."""
    allow_loopback = loopback_allowed(url)
    try:
        where = target(url, allow_loopback=allow_loopback)
        response = exchange("GET", where, headers={"Accept": accept, **(headers or {})}, user_agent=USER_AGENT,
                            limits=limits, resolver=resolver, allow_loopback=allow_loopback, context=context)
    except BadUrl as exc:
        raise Unavailable(str(exc)) from None
    except TooLarge as exc:
        raise Unavailable(f"larger than {limits.max_bytes} bytes ({exc.internal})") from None
    except Unreachable as exc:
        raise Unavailable(exc.internal) from None
    if 300 <= response.status < 400:
        raise Unavailable(f"it answered HTTP {response.status}: authgate does not follow redirects")
    if response.status != 200:
        raise Unavailable(f"it answered HTTP {response.status}, not 200")
    media = response.header("Content-Type").split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    if not (media == "application/json" or (kind == "application" and subtype.endswith("+json"))):
        raise Unavailable(f"served as {media[:100] or 'no Content-Type'}, not application/json")
    try:
        document = strict_json.loads(response.body.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError too
        raise Unavailable(f"its body is not strict JSON ({str(exc)[:100]})") from None
    if not isinstance(document, dict):
        raise Unavailable("its body is not a JSON object")
    return document
