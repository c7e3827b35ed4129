"""The issuer / public base URL (RFC 8414 2 `issuer`), also the base of problem `type` URIs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.settings import SettingsError, get_settings

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView


def base_url(request: RequestView | None) -> str:
    """Configured issuer, else derived from the API Gateway context (https://domain/stage)."""
    try:
        configured = get_settings().issuer
    except SettingsError:
        # A misconfigured deployment still has to render its 500 problem; the error itself is
        # logged by the App's boundary.
        configured = ""
    if configured or request is None:
        return configured
    if request.domain and request.stage:
        return f"https://{request.domain}/{request.stage}"
    return ""


def problem_type(request: RequestView | None, code: str) -> str:
    """RFC 9457 3.1.1 `type`: an absolute URI that GET /problems/{code} documents."""
    return f"{base_url(request)}/problems/{code}"
