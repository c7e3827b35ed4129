"""http.context: the typed facts handling leaves for the boundary."""

from __future__ import annotations

from authgate.http.context import AuthorizationRedirect, RequestContext


def test_a_fresh_context_knows_nothing() -> None:
    context = RequestContext()
    assert (context.error_format, context.redirect, context.response_headers) == (None, None, {})


def test_response_headers_are_not_shared_between_requests() -> None:
    first, second = RequestContext(), RequestContext()
    first.response_headers["RateLimit"] = '"tenant";r=1;t=60'
    assert second.response_headers == {}


def test_an_authorization_redirect_holds_the_uri_and_the_state() -> None:
    redirect = AuthorizationRedirect("https://app.example/cb", None)
    assert (redirect.redirect_uri, redirect.state) == ("https://app.example/cb", None)
    assert RequestContext(error_format="legacy-b", redirect=redirect).redirect is redirect
