"""The Lambda context of the current invocation, for code that needs the remaining time.

Route handlers receive only the request; the idempotency layer needs
`get_remaining_time_in_millis()` so an in-progress record expires when the invocation would
have timed out. A ContextVar keeps this per invocation (and per thread in local tests).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from authgate.http.app import App
from authgate.http.response import Response

# template.yaml Globals Timeout (10 s): what a local invocation without a context may assume.
DEFAULT_TIMEOUT_MS = 10_000

_CONTEXT: ContextVar[Any] = ContextVar("lambda_context", default=None)


class _Deadline:
    """Stands in for a Lambda context when none is given (local invoke): a fixed time budget."""

    def __init__(self, budget_ms: int) -> None:
        self._deadline = time.monotonic() + budget_ms / 1000

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class InvocationApp(App):
    """An App whose routes can read the Lambda context through `lambda_context()`."""

    def handle(self, event: Mapping[str, Any], context: Any = None) -> Response:
        if not callable(getattr(context, "get_remaining_time_in_millis", None)):
            context = _Deadline(DEFAULT_TIMEOUT_MS)
        token = _CONTEXT.set(context)
        try:
            return super().handle(event, context)
        finally:
            _CONTEXT.reset(token)


def lambda_context() -> Any:
    """The current invocation's context (a deadline-only stand-in outside Lambda)."""
    return _CONTEXT.get() or _Deadline(DEFAULT_TIMEOUT_MS)
