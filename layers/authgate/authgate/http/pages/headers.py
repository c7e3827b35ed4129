"""The response headers of every HTML page (CSP Level 3, RFC 7034, RFC 9110 8.3, W3C Referrer Policy).

Strict by default: nothing loads but this origin's stylesheet (no inline style, no script), the
page cannot be framed, sends no Referer (an authorization URL carries state and a PKCE
challenge), and is never cached where it holds per-request state.
"""

from __future__ import annotations

from collections.abc import Sequence

from authgate.http.response import NO_STORE

# Characters that could end a CSP source list or directive, or quote their way out of one.
_UNSAFE_IN_CSP = frozenset(";,'\" \t\r\n")


def page_headers(*, form_action: Sequence[str] = (), cache: str | None = None, script: bool = False) -> dict[str, str]:
    """Headers of an HTML page; `form_action` adds origins a form may submit (or redirect) to; `cache` a
    Cache-Control for a page that may be kept (NO_STORE otherwise); `script` lets the page run this origin's
    scripts (the passkey pages' /assets/passkeys.js; never an inline one)."""
    # A page without a form may submit nowhere; a form may post back here, and to the origins
    # given (browsers apply form-action to the redirect that follows a submission).
    targets = ["'self'", *(o for o in form_action if o and not _UNSAFE_IN_CSP.intersection(o))]
    csp = "; ".join([
        "default-src 'none'", *(["script-src 'self'"] if script else []), "style-src 'self'", "img-src 'self'",
        "form-action " + (" ".join(targets) if form_action else "'none'"),
        "frame-ancestors 'none'", "base-uri 'none'",
    ])
    headers = {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": csp,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        **({"Cache-Control": cache} if cache is not None else NO_STORE),
    }
    return headers
