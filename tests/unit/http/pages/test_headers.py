"""http.pages.headers: every HTML page's security headers (CSP Level 3, RFC 7034, Referrer Policy, no-store)."""

from __future__ import annotations

from authgate.http.pages.headers import page_headers

STRICT = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"


def test_a_page_without_a_form_may_load_and_submit_nothing() -> None:
    assert page_headers() == {
        "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": STRICT, "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
        "Pragma": "no-cache"}


def test_a_form_may_submit_here_and_to_the_given_origins_only() -> None:
    csp = page_headers(form_action=["https://app.example", "com.example.app:"])["Content-Security-Policy"]
    assert "form-action 'self' https://app.example com.example.app:;" in csp


def test_an_origin_that_could_break_out_of_the_directive_is_dropped() -> None:
    csp = page_headers(form_action=["https://a.example; script-src *", "https://b.example'"])["Content-Security-Policy"]
    assert "form-action 'self';" in csp and "script-src" not in csp and "b.example" not in csp


def test_a_cacheable_page_has_no_pragma() -> None:
    headers = page_headers(cache="public, max-age=3600")
    assert (headers["Cache-Control"], "Pragma" in headers) == ("public, max-age=3600", False)
