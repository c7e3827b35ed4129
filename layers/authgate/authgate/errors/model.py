"""The one internal error type. Renderers (errors/render_*.py) turn it into each wire shape.

Modelled on node-oidc-provider's error class: a client-facing description and a separate
internal detail that only reaches logs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from authgate.errors.catalogue import lookup


@dataclass(frozen=True)
class FieldError:
    """One field-level problem: a JSON pointer into the request and a message for people."""

    pointer: str  # RFC 6901 pointer, e.g. "/amount"; "" for the whole body
    message: str
    # Where the offending value came from: "body" (JSON pointer), "query" or "header".
    location: str = "body"
    # For location query/header: the parameter or header name.
    name: str = ""


@dataclass(eq=False)
class ApiError(Exception):
    """A failure the client is told about, in the shape it negotiated.

    `code` names a catalogue entry, which gives the default status and title.
    `detail` is shown to the client; `internal` only reaches logs.
    """

    code: str
    detail: str = ""
    internal: str = ""
    status: int = 0
    field_errors: tuple[FieldError, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    # OAuth error code when it differs from `code` (e.g. 503 service_unavailable is
    # temporarily_unavailable on OAuth surfaces).
    oauth_error: str = ""

    def __post_init__(self) -> None:
        info = lookup(self.code)
        if not self.status:
            self.status = info.status
        if not self.detail:
            self.detail = info.title
        super().__init__(self.code)

    @property
    def title(self) -> str:
        return lookup(self.code).title

    def __str__(self) -> str:  # what a log line shows
        return f"{self.code} ({self.status}): {self.detail}" + (f" [{self.internal}]" if self.internal else "")


def retry_after(error: ApiError, seconds: int) -> ApiError:
    """Attach Retry-After (seconds, RFC 9110 10.2.3) to an error."""
    error.headers["Retry-After"] = str(max(0, int(seconds)))
    return error
