"""The token, revocation and introspection endpoints' errors (contract 7.2; RFC 6749 5.2, RFC 7009, RFC 7662)."""

from __future__ import annotations

from authgate_cli.check.expectations import Expect
from authgate_cli.check.probes.base import BASIC_UNKNOWN, RequestProbe, Send, form

FORM = (("Content-Type", "application/x-www-form-urlencoded"),)
TOKEN = "@token_endpoint"
OAUTH_RULES = ("oauth-error-shape", "oauth-error-status", "expected-code")
CITE = "contract 7.2; RFC 6749 5.2"


def _token(body: bytes, headers: tuple[tuple[str, str], ...] = FORM, credentials: tuple[str, ...] = ()) -> Send:
    return Send("POST", TOKEN, headers, body, credentials, fallback="/oauth/token")


def _wrong_method(name: str, member: str, fallback: str, what: str) -> RequestProbe:
    # GET is safe, and RFC 6749 3.2 / RFC 7009 2.1 / RFC 7662 2.1 allow only POST here.
    return RequestProbe(
        name, f"GET on the {what} is 405 with Allow: POST", ("allow-on-405", "expected-status"),
        send=Send("GET", member, fallback=fallback),
        expect=Expect(status=(405,), refused_method="GET", status_severity="warning", cite="RFC 9110 15.5.6"))


PROBES = (
    RequestProbe(
        "token.not-form-encoded", "a JSON token request is 400 invalid_request (RFC 6749 3.2)", OAUTH_RULES,
        send=_token(b'{"grant_type": "client_credentials"}', (("Content-Type", "application/json"),)),
        expect=Expect(status=(400,), status_rule="oauth-error-status", codes=("invalid_request",), oauth=True,
                      cite=CITE)),
    RequestProbe(
        "token.missing-grant-type", "a token request without grant_type is 400 invalid_request (contract 4.2)",
        OAUTH_RULES, send=_token(b""),
        expect=Expect(status=(400,), status_rule="oauth-error-status", codes=("invalid_request",), oauth=True,
                      cite=CITE)),
    RequestProbe(
        "token.unsupported-grant-type", "an unknown grant_type is 400 unsupported_grant_type (RFC 6749 5.2)",
        OAUTH_RULES, send=_token(form({"grant_type": "urn:authgate-check:no-such-grant"})),
        # A server may authenticate the client first: then 401 invalid_client is right too.
        expect=Expect(status=(400, 401), status_rule="oauth-error-status",
                      codes=("unsupported_grant_type", "invalid_client"), oauth=True, cite=CITE)),
    RequestProbe(
        "token.unknown-client", "an unknown client (Basic) is 401 invalid_client with a Basic challenge",
        (*OAUTH_RULES, "oauth-client-challenge"),
        send=_token(form({"grant_type": "client_credentials"}), credentials=(BASIC_UNKNOWN,)),
        expect=Expect(status=(401,), status_rule="oauth-client-challenge", codes=("invalid_client",), oauth=True,
                      challenge="Basic", challenge_rule="oauth-client-challenge", cite=CITE)),
    _wrong_method("token.wrong-method", TOKEN, "/oauth/token", "token endpoint"),
    _wrong_method("revocation.wrong-method", "@revocation_endpoint", "/oauth/revoke", "revocation endpoint"),
    _wrong_method("introspection.wrong-method", "@introspection_endpoint", "/oauth/introspect",
                  "introspection endpoint"),
)
