"""POST to a URL someone else chose: a form (OpenID Connect Back-Channel Logout 1.0 2.5) or any body (a tenant's
CIBA approval webhook, docs/ciba.md).

Under every rule of authgate.outbound.connection (one resolution, every address checked, the
connection pinned to it, TLS verified, time and bytes bounded at the socket). The URL is https
(http only to a loopback host when the local stack allows loopback), without userinfo or a
fragment. Redirects are never followed (BCL 2.5: the RP answers 200, or 204). The response body
is read up to `limits.max_bytes` and otherwise ignored.

`Failed.retry` says whether trying again later may help: a network failure, a timeout or a 5xx
(or 429) may pass; a refused address, a bad URL, a redirect or another 4xx will not.
"""

from __future__ import annotations

import ssl
from urllib.parse import urlencode

from authgate.outbound.connection import (
    AddressRefused,
    Limits,
    Resolver,
    Unreachable,
    system_resolver,
)
from authgate.outbound.exchange import BadUrl, Target, TooLarge, exchange
from authgate.outbound.exchange import target as checked_target

__all__ = ["DEFAULT_LIMITS", "Failed", "Target", "post", "post_form", "target"]

USER_AGENT = "authgate (outbound)"
FORM = "application/x-www-form-urlencoded"
DEFAULT_LIMITS = Limits(connect=2.0, read=3.0, total=5.0, max_bytes=4 * 1024)


class Failed(Exception):
    """The POST did not get a 2xx; `internal` says what happened (for logs), `retry` whether to try again."""

    def __init__(self, internal: str, *, retry: bool) -> None:
        super().__init__(internal)
        self.internal = internal
        self.retry = retry


def target(url: str, *, allow_loopback: bool = False) -> Target:
    """`url` checked (https, or http to loopback when allowed; no userinfo, no fragment); Failed otherwise."""
    try:
        return checked_target(url, allow_loopback=allow_loopback)
    except BadUrl as exc:
        raise Failed(str(exc), retry=False) from None


def post_form(url: str, fields: dict[str, str], *, resolver: Resolver = system_resolver,
              allow_loopback: bool = False, context: ssl.SSLContext | None = None,
              limits: Limits = DEFAULT_LIMITS) -> int:
    """POST `fields` as application/x-www-form-urlencoded to `url`; the 2xx status, or Failed."""
    return post(url, urlencode(fields).encode("ascii"), FORM, resolver=resolver, allow_loopback=allow_loopback,
                context=context, limits=limits)


def post(url: str, body: bytes, content_type: str, *, headers: dict[str, str] | None = None,
         resolver: Resolver = system_resolver, allow_loopback: bool = False, context: ssl.SSLContext | None = None,
         limits: Limits = DEFAULT_LIMITS) -> int:
    """POST `body` of `content_type` (and `headers`) to `url`; the 2xx status, or Failed."""
    where = target(url, allow_loopback=allow_loopback)
    try:
        response = exchange("POST", where, body=body, headers={"Content-Type": content_type, **(headers or {})},
                            user_agent=USER_AGENT, limits=limits, resolver=resolver, allow_loopback=allow_loopback,
                            context=context)
    except AddressRefused as exc:
        raise Failed(exc.internal, retry=False) from None
    except TooLarge:
        raise Failed("its answer was too large", retry=False) from None
    except Unreachable as exc:
        raise Failed(exc.internal, retry=True) from None
    if 200 <= response.status < 300:
        return response.status
    raise Failed(f"it answered HTTP {response.status}", retry=response.status >= 500 or response.status == 429)
