"""http.problem_pages: GET /problems/{code}, the page a problem `type` dereferences to (RFC 9457 3.1.1)."""

from __future__ import annotations

import json

import pytest

from authgate.errors.catalogue import catalogue
from authgate.errors.model import ApiError
from authgate.http.pages import stylesheet
from authgate.http.pages.headers import page_headers
from authgate.http.problem_pages import get_problem, problem_page
from authgate.http.request import Request
from tests.demo import ISSUER
from tests.events import event


def problem_request(code: str, accept: str | None = None) -> Request:
    headers = {"Accept": accept} if accept is not None else {}
    req = Request.from_event(event("GET", "/problems/{code}", f"/problems/{code}", headers=headers))
    req.path_params = {"code": code}
    return req


@pytest.mark.parametrize("accept", ["application/json", "application/problem+json"])
def test_json_is_the_catalogue_entry_with_its_type(accept: str) -> None:
    response = get_problem(problem_request("invoice_locked", accept))
    assert (response.status, response.headers, json.loads(response.body)) == (200, {
        "Content-Type": "application/json", "Cache-Control": "public, max-age=3600", "Vary": "Accept",
    }, {
        "type": f"{ISSUER}/problems/invoice_locked", "code": "invoice_locked", "status": 403,
        "title": "Invoice locked",
        "meaning": "The invoice is locked and cannot be charged. A business rule, not an outage.",
    })


@pytest.mark.parametrize("accept", [None, "text/html", "*/*", "text/html, application/json;q=0.5"])
def test_a_browser_gets_a_cacheable_html_page(accept: str | None) -> None:
    info = catalogue()["rate_limited"]
    response = get_problem(problem_request("rate_limited", accept))
    assert response.status == 200
    assert response.headers == {**page_headers(cache="public, max-age=3600"), "Vary": "Accept"}
    assert "Pragma" not in response.headers  # public documentation, not a per-request page
    assert response.body == problem_page(info.code, info.status, info.title, info.meaning)


@pytest.mark.parametrize("code", ["no_such_code", "", "_comment", "INVOICE_LOCKED"])
def test_an_undocumented_code_is_not_found(code: str) -> None:
    with pytest.raises(ApiError) as info:
        get_problem(problem_request(code, "application/json"))
    assert (info.value.code, info.value.status, info.value.detail) == (
        "not_found", 404, "No problem type of that name is documented.")


def test_a_request_without_the_path_parameter_is_not_found() -> None:
    req = Request.from_event(event("GET", "/problems/{code}", "/problems/"))
    with pytest.raises(ApiError) as info:
        get_problem(req)
    assert info.value.code == "not_found"


def test_the_page_documents_the_code_its_status_and_an_example() -> None:
    page = problem_page("invoice_locked", 403, "Invoice locked", "The invoice is locked.")
    assert page.startswith('<!doctype html><html lang="en"><head><meta charset="utf-8">')
    assert "<title>invoice_locked: Invoice locked</title>" in page
    assert stylesheet.link() in page
    assert "<h1><code>invoice_locked</code> &mdash; Invoice locked</h1>" in page
    assert "<p><strong>HTTP status:</strong> 403</p>" in page
    assert "<p>The invoice is locked.</p>" in page
    example = json.dumps({"type": ".../problems/invoice_locked", "title": "Invoice locked", "status": 403,
                          "code": "invoice_locked"}, indent=2).replace('"', "&quot;")
    assert f"<pre>{example}</pre>" in page
    assert page.endswith("</main></body></html>")


def test_the_page_escapes_what_it_shows() -> None:
    page = problem_page("x<y", 400, "A & <b>", 'Say "<script>alert(1)</script>"')
    assert "<script>" not in page and "<b>" not in page
    assert "<title>x&lt;y: A &amp; &lt;b&gt;</title>" in page
    assert "<p>Say &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;</p>" in page
    assert "&quot;code&quot;: &quot;x&lt;y&quot;" in page


def test_every_catalogue_code_has_a_page() -> None:
    for code in catalogue():
        response = get_problem(problem_request(code, "text/html"))
        assert response.status == 200 and f"<code>{code}</code>" in response.body
