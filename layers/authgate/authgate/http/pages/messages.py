"""A page's message to the person: an error drawn as one, a success drawn as one, nothing when there is none.

An error is an alert (WAI-ARIA 1.2 `role="alert"`: read out at once; class `message error`); a
success is a status (`role="status"`: read out politely; class `message success`). An empty
message draws nothing: no empty box, no empty live region. A flow that reports either kind
through one string marks a success as `Done`; any other message is an error.
"""

from __future__ import annotations

import html


class Done(str):
    """A message that says what was done (a success); any other message of a page is an error."""

    __slots__ = ()


def alert(text: str) -> str:
    """An error's paragraph, escaped; nothing when there is none."""
    return f'<p class="message error" role="alert">{html.escape(text)}</p>' if text else ""


def status(text: str) -> str:
    """A success's paragraph, escaped; nothing when there is none."""
    return f'<p class="message success" role="status">{html.escape(text)}</p>' if text else ""


def shown(message: str) -> str:
    """The message by its kind: a Done as a status, any other as an alert; nothing when it is empty."""
    return status(message) if isinstance(message, Done) else alert(message)
