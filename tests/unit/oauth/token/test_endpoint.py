"""oauth.token.endpoint.post_token: the checks in their order, then the grant's RFC 6749 5.1 response."""

from __future__ import annotations

import json

import pytest

from authgate.errors import ApiError
from authgate.oauth.token.endpoint import post_token
from tests.demo import VERIFIER, WEB_REDIRECT, Demo
from tests.functional.token_support import new_code, user_id_of
from tests.unit.oauth.token.form_requests import form_request

NO_STORE = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}


def token(fields: list[tuple[str, str]], client_id: str | None = "demo-web", **kwargs: object) -> tuple[int, dict[str, str], dict[str, object]]:
    response = post_token(form_request("/oauth/token", fields, client_id=client_id, **kwargs))  # type: ignore[arg-type]
    return response.status, response.headers, json.loads(response.body)


def refused(fields: list[tuple[str, str]], client_id: str | None = "demo-web") -> tuple[str, int, str]:
    with pytest.raises(ApiError) as info:
        token(fields, client_id)
    return info.value.code, info.value.status, info.value.detail


def test_an_authorization_code_is_exchanged_for_tokens(demo: Demo) -> None:
    status, headers, body = token([("grant_type", "authorization_code"), ("code", new_code()),
                                   ("redirect_uri", WEB_REDIRECT), ("code_verifier", VERIFIER)])
    assert (status, headers) == (200, NO_STORE)
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("Bearer", 900, "charges:read charges:write")


def test_client_credentials(demo: Demo) -> None:
    status, headers, body = token([("grant_type", "client_credentials"), ("scope", "charges:read")], "demo-service")
    assert (status, headers) == (200, NO_STORE)
    assert (body["token_type"], body["scope"], "refresh_token" in body) == ("Bearer", "charges:read", False)


def test_grant_type_is_required_before_anything_else(demo: Demo) -> None:
    # No client authentication either: the missing grant_type is reported first.
    assert refused([("code", "x")], client_id=None) == (
        "invalid_request", 400, "The grant_type parameter is required.")


def test_an_unknown_grant_type_is_refused_before_client_authentication(demo: Demo) -> None:
    code, status, _ = refused([("grant_type", "urn:example:magic")], client_id=None)
    assert (code, status) == ("unsupported_grant_type", 400)


def test_the_client_must_authenticate(demo: Demo) -> None:
    code, status, _ = refused([("grant_type", "client_credentials")], client_id=None)
    assert (code, status) == ("invalid_client", 401)


def test_a_grant_the_client_is_not_registered_for_is_unauthorized_client(demo: Demo) -> None:
    assert refused([("grant_type", "client_credentials")], "demo-web") == (
        "unauthorized_client", 400, "This client may not use the client_credentials grant.")
    assert refused([("grant_type", "refresh_token"), ("refresh_token", "x")], "demo-service") == (
        "unauthorized_client", 400, "This client may not use the refresh_token grant.")


def test_a_bad_code_is_invalid_grant(demo: Demo) -> None:
    code, status, _ = refused([("grant_type", "authorization_code"), ("code", "nope"),
                               ("redirect_uri", WEB_REDIRECT), ("code_verifier", VERIFIER)])
    assert (code, status) == ("invalid_grant", 400)


def test_a_resource_that_is_not_ours_is_invalid_target(demo: Demo) -> None:
    code, status, _ = refused([("grant_type", "client_credentials"), ("resource", "https://elsewhere.example/api")],
                              "demo-service")
    assert (code, status) == ("unknown_resource", 400)  # OAuth error invalid_target (RFC 8707 2)


def test_the_issued_access_token_passes_the_guard_and_a_code_is_used_once(demo: Demo) -> None:
    from authgate.tokens.guard import verify_access_token
    from tests.demo import ISSUER

    fields = [("grant_type", "authorization_code"), ("code", new_code()), ("redirect_uri", WEB_REDIRECT),
              ("code_verifier", VERIFIER)]
    _, _, body = token(fields)
    principal = verify_access_token(str(body["access_token"]), issuer=ISSUER)
    assert (principal.client_id, principal.subject, principal.username, principal.tenant) == (
        "demo-web", user_id_of("alice"), "alice", "demo")
    assert refused(fields)[:2] == ("invalid_grant", 400)


def test_a_body_that_is_not_a_form_is_invalid_request(demo: Demo) -> None:
    with pytest.raises(ApiError) as info:
        token([("grant_type", "client_credentials")], "demo-service", content_type="application/json")
    assert (info.value.code, info.value.status) == ("invalid_request", 400)
