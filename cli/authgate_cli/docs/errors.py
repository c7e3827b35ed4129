"""docs/errors.md, generated from catalogue.json (scripts/generate_error_docs.py writes it)."""

from __future__ import annotations

from authgate.errors.catalogue import catalogue
from authgate.errors.model import ApiError
from authgate.http.shapes.oauth import oauth_error_code


def _oauth_code(code: str) -> str:
    """What the token endpoint's `error` says for this code (the renderer's own mapping)."""
    return oauth_error_code(ApiError(code))


def render_markdown() -> str:
    lines = [
        "# Error codes",
        "",
        "<!-- Generated from layers/authgate/authgate/errors/catalogue.json by",
        "     scripts/generate_error_docs.py; edit the catalogue, not this file. -->",
        "",
        "Every error body carries one of these codes (`code` in problem details, legacy variant A",
        "and JSON:API `errors[].code`; `errors[].code` in legacy variant B; `error` on OAuth",
        "endpoints, where an application code maps onto the RFC 6749 code shown and `error_uri`",
        "names the application code). A published code never disappears and never changes status.",
        "Each code is documented at `GET /problems/{code}`, the problem `type` URI.",
        "",
        "| Code | HTTP status | Title | OAuth `error` (token endpoint) | Meaning |",
        "|---|---|---|---|---|",
    ]
    for info in sorted(catalogue().values(), key=lambda c: (c.status, c.code)):
        meaning = info.meaning.replace("|", "\\|")
        lines.append(f"| `{info.code}` | {info.status} | {info.title} | `{_oauth_code(info.code)}` "
                     f"| {meaning} |")
    return "\n".join(lines) + "\n"
