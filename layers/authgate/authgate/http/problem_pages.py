"""GET /problems/{code}: the page each problem `type` URI dereferences to (RFC 9457 3.1.1).

Browsers get HTML; `Accept: application/json` (or problem+json) gets the catalogue entry as
JSON. An unknown code is a 404 problem like any other. Pages are generated from
catalogue.json, so they cannot drift from the codes the service sends.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from authgate.errors.catalogue import catalogue
from authgate.errors.model import ApiError
from authgate.http.negotiation import preferred
from authgate.http.pages import head
from authgate.http.pages.headers import page_headers
from authgate.http.response import Response
from authgate.issuer import problem_type

if TYPE_CHECKING:
    from authgate.http.request import Request

CACHE = "public, max-age=3600"


def get_problem(request: Request) -> Response:
    code = request.path_params.get("code", "")
    info = catalogue().get(code)
    if info is None or code.startswith("_"):
        raise ApiError("not_found", "No problem type of that name is documented.")
    kind = preferred(request, ["text/html", "application/json", "application/problem+json"])
    type_uri = problem_type(request, code)
    if kind in ("application/json", "application/problem+json"):
        body = {"type": type_uri, "code": info.code, "status": info.status, "title": info.title,
                "meaning": info.meaning}
        response = Response.json(200, body, "application/json")
    else:
        # Public documentation: cacheable, unlike the pages that hold a request's state.
        response = Response(200, problem_page(info.code, info.status, info.title, info.meaning),
                            page_headers(cache=CACHE))
    response.set_header("Cache-Control", CACHE)
    response.set_header("Vary", "Accept")
    return response


def problem_page(code: str, status: int, title: str, meaning: str) -> str:
    """A self-contained HTML page documenting one code."""
    c, t, m = html.escape(code), html.escape(title), html.escape(meaning)
    example = html.escape(json.dumps({"type": f".../problems/{code}", "title": title, "status": status,
                                      "code": code}, indent=2))
    return (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{c}: {t}</title>{head.links()}</head><body><main class=\"wide\">"
        f"<h1><code>{c}</code> &mdash; {t}</h1>"
        f"<p><strong>HTTP status:</strong> {status}</p>"
        f"<p>{m}</p>"
        "<h2>How it looks</h2>"
        f"<pre>{example}</pre>"
        "<p>The same code appears as <code>errors[].code</code> in JSON:API, as <code>code</code> in the "
        "legacy shapes, and behind <code>error_uri</code> on OAuth endpoints. Quote the response's "
        "<code>x-request-id</code> when you ask for help.</p>"
        "</main></body></html>"
    )
