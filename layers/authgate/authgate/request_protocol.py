"""The typing Protocols of a request as domain code reads it (PEP 544), which the HTTP Request satisfies.

Domain modules (the limiter, the idempotency key, DPoP, the bearer guard) type their argument
with `RequestView` and import nothing from authgate.http, as Authlib's protocol code works on a
framework-neutral OAuth2Request; the edge passes its http.request.Request (structural typing:
no conversion, no cost).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol, get_args

# A client's registered error shape (contract "Error shapes"); problem+json is the default.
ErrorFormat = Literal["problem", "legacy-a", "legacy-b"]
ERROR_FORMATS: tuple[ErrorFormat, ...] = get_args(ErrorFormat)


class HeaderView(Protocol):
    """Case-insensitive request header fields (RFC 9110 5)."""

    def get(self, name: str, default: str | None = None) -> str | None: ...

    def get_all(self, name: str) -> list[str]: ...


class Learned(Protocol):
    """What handling learns for the response: the client's error shape, headers every response carries."""

    error_format: ErrorFormat | None
    response_headers: dict[str, str]


class RequestView(Protocol):
    """A request as the domain sees it."""

    @property
    def method(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def source_ip(self) -> str: ...

    @property
    def domain(self) -> str: ...

    @property
    def stage(self) -> str: ...

    @property
    def headers(self) -> HeaderView: ...

    @property
    def query(self) -> Mapping[str, list[str]]: ...

    @property
    def body(self) -> bytes: ...

    @property
    def content_type(self) -> str: ...

    @property
    def context(self) -> Learned: ...

    def form(self) -> list[tuple[str, str]]: ...
