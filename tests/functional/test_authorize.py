"""GET/POST /oauth/authorize through the authorize function: every code of contract table 7.1.

Errors before the client and redirect URI are trusted are an HTML page (400, never a redirect);
every later error is a redirect to the registered URI with error, error_description, state and
iss: 302 from GET, 303 from the sign-in form's POST (RFC 9700 4.12, FAPI 2.0 5.3.2.2 item 11).
"""

from __future__ import annotations

import re
import time
from typing import Any

import boto3
import pytest

from authgate.clock import ManualClock
from tests.demo import CHALLENGE, ISSUER, PARTNER_REDIRECT, SPA_REDIRECT, WEB_REDIRECT
from tests.functional.authorize_support import (
    OPEN_REDIRECT_MATRIX,
    PAGE_HEADERS,
    Browser,
    assert_error_page,
    headers_of,
    page_of,
    put_client,
    redirect_of,
    web_params,
    without_request_id,
)

NO_STORE_REDIRECT = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def assert_error_redirect(result: dict[str, Any], error: str, description: str, base: str = WEB_REDIRECT,
                          state: str | None = "xyz-state", extra_headers: dict[str, str] | None = None) -> None:
    redirect = redirect_of(result)
    assert without_request_id(result) == {"Location": headers_of(result)["Location"], **NO_STORE_REDIRECT,
                                          **(extra_headers or {})}
    assert result["body"] == ""
    expected = {"error": [error], "error_description": [description], "iss": [ISSUER]}
    if state is not None:
        expected["state"] = [state]
    assert (redirect.base, redirect.params) == (base, expected)


# ---------------------------------------------------------------- success

def test_valid_request_shows_the_login_and_consent_page(browser: Browser) -> None:
    page = page_of(browser.get(web_params()))
    assert page.status == 200
    headers = {k: v for k, v in page.headers.items() if k not in ("x-request-id", "Set-Cookie",
                                                                    "Content-Security-Policy")}
    assert headers == {**PAGE_HEADERS, "Pragma": "no-cache", "X-Content-Type-Options": "nosniff"}
    csp = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    assert "form-action 'self' http://127.0.0.1:8765;" in csp
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith("authgate_binding=") and cookie.endswith("; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000")
    assert page.forms == [{"method": "post", "action": "authorize", "autocomplete": "on"}]
    assert [(i["name"], i["type"]) for i in page.inputs] == [
        ("request_blob", "hidden"), ("csrf", "hidden"), ("username", "text"), ("password", "password")]
    assert [(b["name"], b["value"]) for b in page.buttons] == [("decision", "approve"), ("decision", "deny")]
    assert page.text() == ("Sign in to authorize Demo web app Demo web app is asking for access to Demo Inc. in "
                           "Charges API : Your organisation's charges, refunds and invoices. "
                           f"{ISSUER}/charges See your charges charges:read Create charges charges:write "
                           "Username Password Approve Deny Manage your account You will be sent back to http://127.0.0.1:8765 .")


@pytest.mark.slow
def test_approve_redirects_with_code_state_and_iss_and_binds_the_code(browser: Browser) -> None:
    from authgate.stores.codes import CodeStore

    page = page_of(browser.get(web_params()))
    result = browser.submit(page)
    redirect = redirect_of(result)
    assert result["statusCode"] == 303  # the browser follows with a GET, never re-posting the password
    # The sign-in opens a session (docs/oidc.md): its cookie comes with the code.
    session_cookie = headers_of(result)["Set-Cookie"]
    assert re.fullmatch(r"authgate_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=/; Max-Age=43200",
                        session_cookie)
    assert without_request_id(result) == {"Location": headers_of(result)["Location"], **NO_STORE_REDIRECT,
                                          "Referrer-Policy": "no-referrer", "Set-Cookie": session_cookie}
    assert redirect.base == WEB_REDIRECT
    assert sorted(redirect.params) == ["code", "iss", "state"]
    assert (redirect.one("state"), redirect.one("iss")) == ("xyz-state", ISSUER)
    record = CodeStore().consume(redirect.one("code"))
    assert (record.client_id, record.tenant_id, record.redirect_uri, record.scope, record.subject,
            record.code_challenge, record.code_challenge_method) == (
        "demo-web", "demo", WEB_REDIRECT, "charges:read charges:write", "alice", CHALLENGE, "S256")


@pytest.mark.slow
def test_redirect_uri_omitted_uses_the_only_registered_one_and_the_code_remembers(browser: Browser) -> None:
    from authgate.stores.codes import CodeStore

    result = browser.submit(page_of(browser.get(web_params(redirect_uri=None, state=None))))
    redirect = redirect_of(result)
    assert redirect.base == WEB_REDIRECT and sorted(redirect.params) == ["code", "iss"]
    record = CodeStore().consume(redirect.one("code"))
    # Bound to where it went, remembering that the request named no URI (RFC 6749 4.1.3).
    assert (record.redirect_uri, record.redirect_uri_sent) == (WEB_REDIRECT, False)


@pytest.mark.slow
def test_public_client_with_pkce_and_default_scope(browser: Browser) -> None:
    params = [("response_type", "code"), ("client_id", "demo-spa"), ("code_challenge", CHALLENGE),
              ("code_challenge_method", "S256")]
    page = page_of(browser.get(params))
    assert page.status == 200
    assert "See your charges charges:read Create charges charges:write" in page.text()
    redirect = redirect_of(browser.submit(page))
    assert redirect.base == SPA_REDIRECT and sorted(redirect.params) == ["code", "iss"]


def test_confidential_client_may_omit_pkce(browser: Browser) -> None:
    assert browser.get(web_params(code_challenge=None, code_challenge_method=None))["statusCode"] == 200


@pytest.mark.slow
def test_redirect_keeps_the_registered_uris_own_query(browser: Browser) -> None:
    put_client(client_id="q-client", redirect_uris=("https://app.example/cb?tenant=7",))
    page = page_of(browser.get([("response_type", "code"), ("client_id", "q-client"), ("state", "s")]))
    redirect = redirect_of(browser.submit(page))
    assert redirect.base == "https://app.example/cb"
    assert redirect.params["tenant"] == ["7"] and redirect.params["state"] == ["s"]


# ---------------------------------------------------------------- the error page: never redirected

@pytest.mark.parametrize("raw_query, detail", [
    ("response_type=code", "The client_id parameter is required."),
    ("response_type=code&client_id=", "The client_id parameter is required."),
    ("client_id=demo-web&client_id=demo-web", "The client_id parameter is repeated (RFC 6749 3.1)."),
    ("client_id=demo%ZZweb", "The client_id parameter is badly encoded."),
    ("client_id=demo%FFweb", "The client_id parameter is badly encoded."),
    ("client_id=demo%0Aweb", "The client_id parameter is badly encoded."),
])
def test_missing_repeated_or_badly_encoded_client_id_is_the_page(browser: Browser, raw_query: str, detail: str) -> None:
    assert_error_page(browser.get_raw(raw_query), "invalid_request", detail)


def test_unknown_client_is_its_own_page(browser: Browser) -> None:
    result = browser.get(web_params(client_id="no-such-client"))
    assert_error_page(result, "unknown_client",
                      "No client with this client_id is registered. Check the client_id the application sends.")


def test_client_of_another_environment_says_where_it_belongs(browser: Browser) -> None:
    """staging-web exists, for staging: a different mistake from a typo, with its own heading."""
    result = browser.get(web_params(client_id="staging-web"))
    assert_error_page(result, "client_of_another_environment",
                      "The client staging-web is registered for the staging environment, not for this one "
                      "(local). Use a client registered here.")


def test_redirect_uri_not_registered_is_its_own_page(browser: Browser) -> None:
    result = browser.get(web_params(redirect_uri=WEB_REDIRECT + "/"))
    assert_error_page(result, "redirect_uri_mismatch",
                      "The redirect_uri does not match a URI registered for this client.")


def test_redirect_uri_repeated_is_the_page(browser: Browser) -> None:
    result = browser.get(web_params() + [("redirect_uri", WEB_REDIRECT)])
    assert_error_page(result, "invalid_request", "The redirect_uri parameter is repeated.")


@pytest.mark.parametrize("raw", ["http://127.0.0.1:8765/%ZZcallback", "http://127.0.0.1:8765/call back",
                                 "callback", "http://127.0.0.1:99999/callback", "http://127.0.0.1:8765/\u00e9"])
def test_badly_encoded_redirect_uri_is_the_page(browser: Browser, raw: str) -> None:
    result = browser.get(web_params(redirect_uri=raw))
    assert_error_page(result, "invalid_request", "The redirect_uri parameter is not a well-formed absolute URI.")


def test_redirect_uri_required_when_several_are_registered(browser: Browser) -> None:
    put_client(client_id="two-uris", redirect_uris=("https://a.example/cb", "https://b.example/cb"))
    result = browser.get([("response_type", "code"), ("client_id", "two-uris")])
    assert_error_page(result, "invalid_request", "The redirect_uri parameter is required for this client.")


@pytest.mark.parametrize("redirect_uri", OPEN_REDIRECT_MATRIX)
def test_open_redirect_matrix_never_redirects(browser: Browser, redirect_uri: str) -> None:
    result = browser.get(web_params(redirect_uri=redirect_uri))
    assert result["statusCode"] == 400
    assert "Location" not in headers_of(result)
    # The page names nothing of the URI (the request id it shows is random, and may hold any digits).
    body = result["body"].replace(headers_of(result)["x-request-id"], "")
    assert "evil" not in body and "8766" not in body
    text = page_of(result).text()
    assert "does not match a URI registered" in text or "not a well-formed absolute URI" in text


@pytest.mark.slow
def test_open_redirect_matrix_also_never_redirects_errors(browser: Browser) -> None:
    # An otherwise-bad request with a bad redirect URI still gets the page, not a redirect there.
    for redirect_uri in OPEN_REDIRECT_MATRIX:
        result = browser.get(web_params(redirect_uri=redirect_uri, response_type="token"))
        assert result["statusCode"] == 400 and "Location" not in headers_of(result), redirect_uri


def test_storage_throttled_before_the_client_is_known_is_a_503_page(browser: Browser) -> None:
    with dynamodb_fault("ClientsTable", throttle=True):
        result = browser.get(web_params())
    assert_error_page(result, "service_unavailable",
                      "The service is temporarily unavailable; retry after Retry-After seconds.", status=503)


# ---------------------------------------------------------------- redirected errors (table 7.1)

def test_missing_response_type_is_invalid_request(browser: Browser) -> None:
    assert_error_redirect(browser.get(web_params(response_type=None)), "invalid_request",
                          "The response_type parameter is required.")


@pytest.mark.parametrize("response_type", ["token", "code token", "id_token", "CODE", "code "])
def test_other_response_type_is_unsupported_response_type(browser: Browser, response_type: str) -> None:
    assert_error_redirect(browser.get(web_params(response_type=response_type)), "unsupported_response_type",
                          "Only response_type=code is supported.")


@pytest.mark.parametrize("name", ["response_type", "scope", "code_challenge", "code_challenge_method", "state"])
def test_duplicate_parameter_is_invalid_request(browser: Browser, name: str) -> None:
    params = web_params()
    params.append((name, dict(params)[name]))
    assert_error_redirect(browser.get(params), "invalid_request", f"The {name} parameter is repeated (RFC 6749 3.1).")


def test_plain_pkce_is_invalid_request(browser: Browser) -> None:
    assert_error_redirect(browser.get(web_params(code_challenge_method="plain")), "invalid_request",
                          "Only code_challenge_method=S256 is supported (RFC 7636 4.3).")


def test_challenge_without_method_means_plain_and_is_invalid_request(browser: Browser) -> None:
    assert_error_redirect(browser.get(web_params(code_challenge_method=None)), "invalid_request",
                          "Only code_challenge_method=S256 is supported (RFC 7636 4.3).")


def test_method_without_challenge_is_invalid_request(browser: Browser) -> None:
    assert_error_redirect(browser.get(web_params(code_challenge=None)), "invalid_request",
                          "code_challenge_method was sent without code_challenge.")


# Under S256 a challenge is BASE64URL(SHA256(verifier)): 43 characters, canonical (RFC 7636 4.2).
# 44 to 128 unreserved characters, "." or "~", or a last character with unused bits set could
# never verify, so the authorization endpoint refuses them rather than issue a dead code.
@pytest.mark.parametrize("challenge", ["short", "x" * 129, "a" * 42 + "!", "x" * 44, "x" * 128, "a" * 42 + ".",
                                       "a" * 42 + "~", "a" * 42 + "B"])
def test_malformed_challenge_is_invalid_request(browser: Browser, challenge: str) -> None:
    assert_error_redirect(browser.get(web_params(code_challenge=challenge)), "invalid_request",
                          "code_challenge must be 43 base64url characters under S256, "
                          "BASE64URL(SHA256(code_verifier)) (RFC 7636 4.2).")


def test_public_client_without_pkce_is_invalid_request(browser: Browser) -> None:
    params = [("response_type", "code"), ("client_id", "demo-spa"), ("redirect_uri", SPA_REDIRECT), ("state", "st")]
    assert_error_redirect(browser.get(params), "invalid_request",
                          "Public clients must use PKCE: send code_challenge with code_challenge_method=S256 "
                          "(RFC 7636).", base=SPA_REDIRECT, state="st")


def test_client_without_the_code_grant_is_unauthorized_client(browser: Browser) -> None:
    put_client(client_id="cc-only", grant_types=("client_credentials",), redirect_uris=("https://cc.example/cb",))
    params = [("response_type", "code"), ("client_id", "cc-only"), ("state", "s1")]
    assert_error_redirect(browser.get(params), "unauthorized_client",
                          "This client may not use the authorization code grant.", base="https://cc.example/cb",
                          state="s1")


@pytest.mark.parametrize("client_id, redirect_uri, scope, description", [
    ("demo-web", WEB_REDIRECT, "charges:read payments:all", "Unknown scope payments:all."),
    ("demo-web", WEB_REDIRECT, "charges:refund", "The tenant forbids the scope charges:refund."),
    ("demo-spa", SPA_REDIRECT, "charges:refund", "The client is not allowed the scope charges:refund."),
    ("demo-web", WEB_REDIRECT, "charges:read  charges:write",
     "scope must be scope-tokens separated by single spaces (RFC 6749 3.3)"),
    ("demo-web", WEB_REDIRECT, 'charges:"read', "scope must be scope-tokens separated by single spaces (RFC 6749 3.3)"),
])
def test_bad_scope_is_invalid_scope(browser: Browser, client_id: str, redirect_uri: str, scope: str,
                                    description: str) -> None:
    result = browser.get(web_params(client_id=client_id, redirect_uri=redirect_uri, scope=scope))
    assert result["statusCode"] == 302  # a redirect from GET
    assert_error_redirect(result, "invalid_scope", description, base=redirect_uri)


def test_client_not_approved_by_the_tenant_admin_is_access_denied(browser: Browser) -> None:
    result = browser.get(web_params(client_id="demo-partner", redirect_uri=PARTNER_REDIRECT, scope="charges:read"))
    assert_error_redirect(result, "access_denied", "The tenant's administrator has not approved this application.",
                          base=PARTNER_REDIRECT)


def test_user_denies_is_access_denied(browser: Browser) -> None:
    page = page_of(browser.get(web_params()))
    result = browser.submit(page, "deny", "", "")
    assert result["statusCode"] == 303  # a redirect from the form's POST
    assert_error_redirect(result, "access_denied", "The user denied the request.")


def test_storage_throttling_is_temporarily_unavailable(browser: Browser) -> None:
    # The tenant is read with the browser's session in one BatchGetItem (oauth.authorization.single_sign_on).
    with dynamodb_fault("TenantsTable", throttle=True, operation="BatchGetItem"):
        result = browser.get(web_params())
    redirect = redirect_of(result)
    assert redirect.params["error"] == ["temporarily_unavailable"]
    assert redirect.params["state"] == ["xyz-state"] and redirect.params["iss"] == [ISSUER]
    assert without_request_id(result) == {"Location": headers_of(result)["Location"], **NO_STORE_REDIRECT,
                                          "Retry-After": "1"}


@pytest.mark.slow
def test_storage_throttling_on_code_creation_is_temporarily_unavailable(browser: Browser) -> None:
    page = page_of(browser.get(web_params()))
    with dynamodb_fault("CodesTable", throttle=True, operation="PutItem"):
        result = browser.submit(page)
    assert_error_redirect(result, "temporarily_unavailable",
                          "The service is temporarily unavailable; retry after Retry-After seconds.",
                          extra_headers={"Retry-After": "1"})


def test_unexpected_failure_is_server_error(browser: Browser) -> None:
    with dynamodb_fault("TenantsTable", throttle=False, operation="BatchGetItem"):
        result = browser.get(web_params())
    assert_error_redirect(result, "server_error", "An unexpected error occurred.")


# ---------------------------------------------------------------- the form

@pytest.mark.slow
def test_wrong_password_shows_the_page_again_without_saying_which_part_was_wrong(browser: Browser) -> None:
    page = page_of(browser.get(web_params()))
    wrong = page_of(browser.submit(page, password="not-it"))
    unknown = page_of(browser.submit(page, username="mallory", password="not-it"))
    for again in (wrong, unknown):
        assert again.status == 200
        assert "Set-Cookie" not in again.headers
        assert again.hidden() == page.hidden()  # the signed state is posted back unchanged
        assert ("The username or password is incorrect, or this account is temporarily locked after repeated "
                "failed attempts.") in again.text()
    assert wrong.text().replace("alice", "U") == unknown.text().replace("mallory", "U")
    assert [i.get("value") for i in wrong.inputs if i["name"] == "username"] == ["alice"]
    assert "not-it" not in wrong.body


@pytest.mark.slow
def test_locked_account_gets_the_same_page_even_with_the_right_password(browser: Browser) -> None:
    boto3.client("dynamodb").update_item(
        TableName="UsersTable", Key={"tenant_id": {"S": "demo"}, "username": {"S": "alice"}},
        UpdateExpression="SET locked_until = :t", ExpressionAttributeValues={":t": {"N": str(int(time.time()) + 900)}})
    page = page_of(browser.get(web_params()))
    again = page_of(browser.submit(page))
    assert again.status == 200 and "temporarily locked" in again.text()


def test_missing_credentials_or_decision_show_the_page_again(browser: Browser) -> None:
    page = page_of(browser.get(web_params()))
    assert "Enter your username and password" in page_of(browser.submit(page, password="")).text()
    assert "Choose Approve or Deny." in page_of(browser.submit(page, decision="")).text()


def test_tampered_form_state_is_the_page(browser: Browser) -> None:
    page = page_of(browser.get(web_params()))
    fields = page.hidden()
    data, mac = fields["request_blob"].split(".")
    import base64
    import json

    payload = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
    payload["req"]["redirect_uri"] = "https://evil.example/cb"
    forged = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    result = browser.post([("request_blob", f"{forged}.{mac}"), ("csrf", fields["csrf"]),
                           ("username", "alice"), ("password", "alice-password"), ("decision", "approve")])
    assert_error_page(result, "invalid_request", "The sign-in form has expired or was altered. Start again from "
                                                 "the application.")


@pytest.mark.parametrize("mutate", ["no_blob", "no_csrf", "bad_csrf", "garbage_blob", "no_cookie", "other_cookie"])
def test_missing_or_unbound_form_state_is_the_page(browser: Browser, mutate: str) -> None:
    page = page_of(browser.get(web_params()))
    fields = page.hidden()
    if mutate == "no_blob":
        del fields["request_blob"]
    elif mutate == "no_csrf":
        del fields["csrf"]
    elif mutate == "bad_csrf":
        # One character changed, so never the issued token (replacing the last two with "AA" left it whole
        # about once in 1 024 runs: the last character of 32 bytes in base64url is one of 16).
        fields["csrf"] = ("B" if fields["csrf"][0] == "A" else "A") + fields["csrf"][1:]
        assert fields["csrf"] != page.hidden()["csrf"]
    elif mutate == "garbage_blob":
        fields["request_blob"] = "%%%.???"
    elif mutate == "no_cookie":
        browser.cookie = None
    else:
        browser.cookie = "authgate_binding=" + "A" * 43  # an attacker's own browser binding
    result = browser.post(list(fields.items()) + [("username", "alice"), ("password", "alice-password"),
                                                 ("decision", "approve")])
    assert_error_page(result, "invalid_request",
                      "The sign-in form has expired or was altered. Start again from the application.")


def test_expired_form_state_is_the_page(browser: Browser, clock: ManualClock) -> None:
    from authgate.oauth.authorization import sealed_form

    page = page_of(browser.get(web_params()))
    clock.advance(sealed_form.FORM_TTL)
    assert_error_page(browser.submit(page), "invalid_request",
                      "The sign-in form has expired or was altered. Start again from the application.")


def test_form_must_be_urlencoded(browser: Browser) -> None:
    result = browser.post([], content_type="application/json", body=b'{"decision":"approve"}')
    assert_error_page(result, "invalid_request",
                      "The sign-in form must be posted as application/x-www-form-urlencoded.")


def test_registration_changed_since_the_form_was_shown(browser: Browser) -> None:
    page = page_of(browser.get(web_params(client_id="demo-spa", redirect_uri=SPA_REDIRECT)))
    put_client(client_id="demo-spa", client_type="public", secret_hash=None, redirect_uris=(SPA_REDIRECT,),
               grant_types=("authorization_code",), scopes=("charges:read",))
    assert_error_redirect(browser.submit(page), "invalid_scope",
                          "The client is not allowed the scope charges:write.", base=SPA_REDIRECT)


@pytest.mark.slow
def test_a_second_tab_keeps_working(browser: Browser) -> None:
    first = page_of(browser.get(web_params(state="one")))
    second = page_of(browser.get(web_params(state="two")))
    assert redirect_of(browser.submit(first)).one("state") == "one"
    assert redirect_of(browser.submit(second)).one("state") == "two"


# ---------------------------------------------------------------- fault injection at the SDK edge

class dynamodb_fault:
    """Make DynamoDB calls on one table fail: throttled (a ClientError) or with an unexpected exception.

    Registered on the cached client's event system (botocore's own extension point); no project
    code is replaced.
    """

    def __init__(self, table: str, throttle: bool, operation: str = "GetItem") -> None:
        self.table, self.throttle, self.operation = table, throttle, operation

    def _handler(self, params: dict[str, Any], **_: Any) -> Any:
        import json

        body = params.get("body") or b"{}"
        request = json.loads(body.decode() if isinstance(body, bytes) else body)
        if request.get("TableName") != self.table and self.table not in request.get("RequestItems", {}):
            return None
        if not self.throttle:
            raise RuntimeError("simulated unexpected failure")
        from botocore.awsrequest import AWSResponse

        return (AWSResponse("https://dynamodb.local", 400, {}, None),
                {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"},
                 "ResponseMetadata": {"HTTPStatusCode": 400}})

    def __enter__(self) -> dynamodb_fault:  # noqa: PYI034
        from authgate.aws import dynamodb

        self.events = dynamodb().meta.events
        self.events.register(f"before-call.dynamodb.{self.operation}", self._handler, unique_id="authorize-fault")
        return self

    def __exit__(self, *exc: object) -> None:
        self.events.unregister(f"before-call.dynamodb.{self.operation}", unique_id="authorize-fault")
