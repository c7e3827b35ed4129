"""The OpenAPI operations of the pages a person uses in a browser (surface `authorize`): the authorization
endpoint (RFC 6749 4.1), password reset, the account page, CIBA approval, the device verification page
(RFC 8628 3.3), sign-out (OpenID Connect RP-Initiated Logout 1.0) with its returns from an upstream identity
provider's own sign-out (docs/federation.md#sign-out-through-the-identity-provider), and where a tenant's identity
providers answer a sign-in (OpenID Connect's redirect URI, SAML's Assertion Consumer Service); and the operators'
console (surface `page`, docs/console.md)."""

from __future__ import annotations

from typing import Any

from authgate_cli.openapi.operations.components import FORM, STR

_LOGOUT_PARAMETERS = ("id_token_hint", "logout_hint", "client_id", "post_logout_redirect_uri", "state", "ui_locales")
_LOGOUT_QUERY = [{"name": n, "in": "query", "required": False, "schema": STR} for n in _LOGOUT_PARAMETERS]
_AUTHORIZE_QUERY = [{"name": n, "in": "query", "required": False, "schema": STR} for n in (
    "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method",
    "resource", "dpop_jkt", "request_uri", "authorization_details",
    # OpenID Connect Core 3.1.2.1, 5.5 (docs/oidc.md).
    "nonce", "prompt", "max_age", "login_hint", "id_token_hint", "ui_locales", "claims", "acr_values")]
_REDIRECT = {"description": "Redirect to the client's registered redirect URI with `code` or `error` "
                            "(RFC 6749 4.1.2 / 4.1.2.1), `state` and `iss` (RFC 9207).",
             "headers": {"Location": {"schema": STR}}}
_PAGE = {"description": "Login and consent page (HTML form).", "content": {"text/html": {"schema": STR}}}
_BACK_TO_FLOW = {"description": "The identity provider's answer, checked: a form that posts it back to the page the "
                                "sign-in started on (submitted at once by the page's script).",
                 "content": {"text/html": {"schema": STR}}}
_UPSTREAM_CODES = ("invalid_request", "upstream_sign_in_failed", "rate_limited", "service_unavailable")
_CALLBACK = {n: STR for n in ("state", "code", "iss", "error", "error_description", "user")}
_SIGNED_OUT = {"description": "The \"signed out\" page (saying so when the identity provider did not confirm its own "
                              "sign-out).", "content": {"text/html": {"schema": STR}}}
_LOGGED_OUT_REDIRECT = {"description": "Back to the application's registered post_logout_redirect_uri, with its state, "
                                       "as the sign-out at /oauth/logout would have sent it.",
                        "headers": {"Location": {"schema": STR}}}
_CONSOLE_PAGE = {"description": "A console page (HTML).", "content": {"text/html": {"schema": STR}}}
_CONSOLE_SIGN_IN = {"description": "No console session: to the authorization endpoint as the console's client, "
                                   "the page asked for kept for after the sign-in.",
                    "headers": {"Location": {"schema": STR}}}

OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("/oauth/authorize", "GET"): {
        "summary": "Authorization request (RFC 6749 4.1.1, PKCE RFC 7636): login and consent page",
        "surface": "authorize", "parameters": _AUTHORIZE_QUERY,
        "codes": ("invalid_request", "unauthorized_client", "invalid_request_uri", "service_unavailable",
                  "login_required", "unmet_authentication_requirements", "request_not_supported",
                  "registration_not_supported", "invalid_authorization_details"),
        "responses": {"200": _PAGE, "302": _REDIRECT},
    },
    ("/oauth/authorize", "POST"): {
        "summary": "Login and decision (approve or deny); redirects with a code or an error. A form with "
                   "client_id or response_type and no request_blob is an authorization request, as the GET "
                   "(OpenID Connect Core 3.1.2.1)",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "request_blob": STR, "csrf": STR, "username": STR, "password": STR,
            "decision": {"type": "string", "enum": ["approve", "deny"]},
            "factor_ticket": STR, "code": STR}}}}},
        "codes": ("invalid_request", "unauthorized_client", "unsupported_media_type", "service_unavailable"),
        "responses": {"200": _PAGE, "303": _REDIRECT},
    },
    ("/oauth/forgot-password", "GET"): {
        "summary": "Forgotten password: the form naming the account (only where the stage sends mail)",
        "surface": "authorize",
        "parameters": [{"name": "tenant", "in": "query", "required": False, "schema": STR,
                        "description": "The organisation the sign-in page was for."}],
        "codes": ("not_found", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/forgot-password", "POST"): {
        "summary": "Mails a single-use reset link if the account exists; the same page either way",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "nonce": STR, "csrf": STR, "tenant": STR, "username": STR}}}}},
        "codes": ("invalid_request", "not_found", "rate_limited", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/reset-password", "GET"): {
        "summary": "The mailed link's page: choose a new password (the link is not consumed here)",
        "surface": "authorize",
        "parameters": [{"name": "token", "in": "query", "required": True, "schema": STR,
                        "description": "The reset link's single-use token."}],
        "codes": ("not_found", "password_reset_link_invalid", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/reset-password", "POST"): {
        "summary": "Sets the new password and uses the link up",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "token": STR, "nonce": STR, "csrf": STR, "password": STR, "confirm": STR}}}}},
        "codes": ("invalid_request", "not_found", "password_reset_link_invalid", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/approve", "GET"): {
        "summary": "A backchannel request's approval link (OpenID Connect CIBA): the request in plain words and "
                   "the sign-in at mfa (the link is not spent here)",
        "surface": "authorize",
        "parameters": [{"name": "token", "in": "query", "required": True, "schema": STR,
                        "description": "The approval link's single-use token."}],
        "codes": ("approval_link_invalid", "approval_wrong_user", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/approve", "POST"): {
        "summary": "Sign in at mfa and approve or deny a backchannel request; spends the link",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "token": STR, "nonce": STR, "csrf": STR, "username": STR, "password": STR, "code": STR,
            "decision": {"type": "string", "enum": ["approve", "deny"]}}}}}},
        "codes": ("invalid_request", "approval_link_invalid", "approval_wrong_user", "rate_limited",
                  "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/account", "GET"): {
        "summary": "The account page: sign in on it, then change your own password",
        "surface": "authorize",
        "codes": ("service_unavailable",),
        "responses": {"200": _PAGE},
    },
    ("/oauth/account", "POST"): {
        "summary": "Signs in on the account page (action=sign_in), changes the password (action=change), sets up, "
                   "confirms or removes a one-time code (action=totp_start, totp_confirm, totp_remove)",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "action": {"type": "string", "enum": ["sign_in", "change", "totp_start", "totp_confirm", "totp_remove"]},
            "nonce": STR, "csrf": STR, "tenant": STR, "username": STR, "password": STR, "current": STR,
            "new_password": STR, "confirm": STR, "code": STR}}}}},
        "codes": ("invalid_request", "rate_limited", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/device", "GET"): {
        "summary": "The device verification page (RFC 8628 3.3): the form for the user code",
        "surface": "authorize",
        "parameters": [{"name": "user_code", "in": "query", "required": False, "schema": STR,
                        "description": "The user code, from verification_uri_complete (RFC 8628 3.3.1)."}],
        "codes": ("service_unavailable",),
        "responses": {"200": _PAGE},
    },
    ("/oauth/device", "POST"): {
        "summary": "The user code (action=code), then the decision (action=decide): approve, after signing in "
                   "or in the browser's session, or deny",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "action": {"type": "string", "enum": ["code", "decide"]}, "nonce": STR, "csrf": STR, "user_code": STR,
            "username": STR, "password": STR, "decision": {"type": "string", "enum": ["approve", "deny"]}}}}}},
        "codes": ("invalid_request", "rate_limited", "service_unavailable"),
        "responses": {"200": _PAGE},
    },
    ("/oauth/federation/callback", "GET"): {
        "summary": "An OpenID Provider's answer to an upstream sign-in (OpenID Connect Core 3.1.2.5, RFC 9207): the "
                   "redirect URI every tenant's IdP registers",
        "surface": "authorize",
        "parameters": [{"name": n, "in": "query", "required": n == "state", "schema": STR} for n in _CALLBACK],
        "codes": _UPSTREAM_CODES,
        "responses": {"200": _BACK_TO_FLOW},
    },
    ("/oauth/federation/callback", "POST"): {
        "summary": "An OpenID Provider's answer posted as a form (Form Post Response Mode: Sign in with Apple)",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": _CALLBACK}}}},
        "codes": (*_UPSTREAM_CODES, "unsupported_media_type"),
        "responses": {"200": _BACK_TO_FLOW},
    },
    ("/saml/{tenant}/acs", "POST"): {
        "summary": "A SAML 2.0 IdP's Response to an upstream sign-in (HTTP-POST binding): the tenant's Assertion "
                   "Consumer Service",
        "surface": "authorize",
        "parameters": [{"name": "tenant", "in": "path", "required": True, "schema": STR}],
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "SAMLResponse": STR, "RelayState": STR}}}}},
        "codes": (*_UPSTREAM_CODES, "unsupported_media_type"),
        "responses": {"200": _BACK_TO_FLOW},
    },
    ("/console", "GET"): {
        "summary": "The operators' console (docs/console.md): its home page, or the sign-in at the stack's own "
                   "authorization endpoint (acr mfa, the console's max_age) when no session is open",
        "surface": "page", "codes": ("operator_forbidden", "service_unavailable"),
        "responses": {"200": _CONSOLE_PAGE, "302": _CONSOLE_SIGN_IN},
    },
    ("/console/{proxy+}", "GET"): {
        "summary": "A page of the console: people (search by username, email or user id, a page at a time), person "
                   "(one person's account), act (the confirmation of an action on a person), callback (the "
                   "sign-in's answer), signed-out",
        "surface": "page",
        "parameters": [{"name": "proxy+", "in": "path", "required": True, "schema": STR,
                        "description": "The page: people, person, act, callback or signed-out (API Gateway's greedy "
                                       "path variable, named as its exports name it)."},
                       *({"name": n, "in": "query", "required": False, "schema": STR}
                         for n in ("tenant", "q", "after", "username", "action", "code", "state", "iss", "error"))],
        "codes": ("invalid_request", "not_found", "operator_forbidden", "console_sign_in_failed",
                  "service_unavailable"),
        "responses": {"200": _CONSOLE_PAGE, "302": _CONSOLE_SIGN_IN},
    },
    ("/console/{proxy+}", "POST"): {
        "summary": "The console's forms: act (an action on a person: disable, enable, unlock, reset-mfa, "
                   "revoke-sessions, send-reset-link, as `authgate users` takes it), and sign-out, which ends the console's session "
                   "and goes on to the stack's end_session endpoint",
        "surface": "page",
        "parameters": [{"name": "proxy+", "in": "path", "required": True, "schema": STR,
                        "description": "The form: act or sign-out."}],
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            "nonce": STR, "csrf": STR, "tenant": STR, "username": STR, "action": STR}}}}},
        "codes": ("invalid_request", "not_found", "operator_forbidden", "service_unavailable"),
        "responses": {"200": {"description": "What the action did (act).", "content": {"text/html": {"schema": STR}}},
                      "303": {"description": "On to the end_session endpoint (OpenID Connect RP-Initiated Logout "
                                             "1.0), or the signed-out page (sign-out).",
                              "headers": {"Location": {"schema": STR}}}},
    },
    ("/oauth/logout", "GET"): {
        "summary": "Sign out (OpenID Connect RP-Initiated Logout 1.0): end the browser's session",
        "surface": "authorize", "parameters": _LOGOUT_QUERY, "codes": ("invalid_request", "service_unavailable"),
        "responses": {"200": _PAGE, "302": {"description": "Back to the registered post_logout_redirect_uri, "
                                                           "with state."}},
    },
    ("/oauth/logout", "POST"): {
        "summary": "Sign out (OpenID Connect RP-Initiated Logout 1.0), the parameters in a form; the confirmation",
        "surface": "authorize",
        "requestBody": {"required": True, "content": {FORM: {"schema": {"type": "object", "properties": {
            **{n: STR for n in _LOGOUT_PARAMETERS}, "confirm": STR, "csrf": STR}}}}},
        "codes": ("invalid_request", "service_unavailable"),
        "responses": {"200": _PAGE, "302": {"description": "Back to the registered post_logout_redirect_uri, "
                                                           "with state."}},
    },
    ("/oauth/federation/logged-out", "GET"): {
        "summary": "Back from an upstream OpenID Provider's sign-out (the post_logout_redirect_uri registered there): "
                   "the end of a federated sign-out",
        "surface": "authorize",
        "parameters": [{"name": "state", "in": "query", "required": False, "schema": STR,
                        "description": "The state authgate sent, held by this browser's sign-out cookie."}],
        "codes": ("invalid_request", "service_unavailable"),
        "responses": {"200": _SIGNED_OUT, "302": _LOGGED_OUT_REDIRECT},
    },
    ("/saml/{tenant}/slo", "GET"): {
        "summary": "A tenant's SAML Single Logout Service (HTTP-Redirect): the IdP's LogoutResponse to authgate's "
                   "LogoutRequest, the end of a federated sign-out",
        "surface": "authorize",
        "parameters": [{"name": "tenant", "in": "path", "required": True, "schema": STR},
                       *({"name": n, "in": "query", "required": False, "schema": STR}
                         for n in ("SAMLResponse", "RelayState", "SigAlg", "Signature"))],
        "codes": ("invalid_request", "not_found", "service_unavailable"),
        "responses": {"200": _SIGNED_OUT, "302": _LOGGED_OUT_REDIRECT},
    },
}
