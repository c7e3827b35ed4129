"""No input to /oauth/token, /oauth/revoke or /oauth/introspect gives a 500 or an HTML page.

Every response is JSON with Cache-Control: no-store; every failure is an RFC 6749 5.2 object
(the `invoke` fixture also runs the contract checker on each one).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.functional.token_support import FORM, TokenClient, basic

# Values of secret-bearing fields are kept apart from every other value: the autouse log
# hygiene check treats them as secrets, and an identifier that happens to equal one (a
# client_id that is also sent as a `code`) would be a false alarm, not a leak.
SECRET_NAMES = st.sampled_from(["code", "code_verifier", "refresh_token", "client_secret", "password", "token"])
PLAIN_NAMES = st.sampled_from(["grant_type", "redirect_uri", "scope", "client_id", "token_type_hint",
                               "username", "x"])
VALUES = st.one_of(
    st.sampled_from(["authorization_code", "refresh_token", "client_credentials", "password", "demo-web",
                     "demo-service", "charges:read", "http://127.0.0.1:8765/callback",
                     "a.b.c", "", "%", "%FF", "+", "&", "="]),
    st.text(max_size=80),
)
SECRET_VALUES = st.one_of(st.just("demo-service-secret"), VALUES.map(lambda v: "fuzz-secret-" + v))
FIELDS = st.lists(st.one_of(st.tuples(SECRET_NAMES, SECRET_VALUES), st.tuples(PLAIN_NAMES, VALUES)), max_size=8)
CONTENT_TYPES = st.sampled_from([FORM, f"{FORM}; charset=utf-8", "application/json", "text/plain", "", None])
AUTH = st.one_of(st.none(), st.sampled_from([basic("demo-service", "demo-service-secret"), basic("demo-web", "x"),
                                             "Basic", "Basic =", "Bearer x", "basic " + "A" * 300]),
                 st.text(max_size=40).map(lambda t: "Basic " + t))
PATHS = st.sampled_from(["/oauth/token", "/oauth/revoke", "/oauth/introspect"])


def encode(fields: list[tuple[str, str]]) -> bytes:
    from urllib.parse import quote_plus

    return "&".join(f"{quote_plus(k)}={quote_plus(v)}" for k, v in fields).encode("utf-8", "surrogatepass")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=PATHS, fields=FIELDS, raw=st.one_of(st.none(), st.binary(max_size=200)), content_type=CONTENT_TYPES,
       auth=AUTH, query=st.sampled_from(["", "a=b", "client_secret=x"]))
def test_no_input_gives_500_or_html(tokens: TokenClient, path: str, fields: list[tuple[str, str]],
                                    raw: bytes | None, content_type: str | None, auth: str | None,
                                    query: str) -> None:
    try:
        body = raw if raw is not None else encode(fields)
    except UnicodeEncodeError:
        body = b""
    result: dict[str, Any] = tokens.post(path=path, body=body, content_type=content_type, auth=auth,
                                         raw_query=query)
    headers = {k.lower(): v[0] for k, v in result["multiValueHeaders"].items()}
    assert result["statusCode"] in {200, 400, 401, 429}, result
    assert headers["content-type"] == "application/json"
    assert headers["cache-control"] == "no-store"
    payload = json.loads(result["body"])
    if result["statusCode"] >= 400:
        assert set(payload) == {"error", "error_description", "error_uri"}
    if result["statusCode"] == 401:
        assert headers["www-authenticate"] == 'Basic realm="oauth"'
