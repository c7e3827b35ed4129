"""Client metadata a client states about itself (RFC 7591 2), checked for a client authgate never vetted.

Shared by Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02 4, 4.1)
and dynamic registration (RFC 7591 2, 3.2.2): the same client may arrive either way.

- redirect_uris: 1 to 10 absolute URIs without fragment or backslash (browsers read "\\" as "/",
  WHATWG URL): https, http on a loopback address
  (RFC 8252 7.3), or a native app's private-use scheme with a dot (RFC 8252 7.1);
- token_endpoint_auth_method: none (the default: there is no shared secret to use) or
  private_key_jwt with jwks or jwks_uri, never both (RFC 7591 2); no client secret of any kind
  and no shared-secret method (draft 4.1);
- grant_types: authorization_code, refresh_token (the default authorization_code, RFC 7591 2);
  response_types, if sent, include code;
- scope: RFC 6749 3.3 scope tokens; client_name a short display string;
- post_logout_redirect_uris (OpenID Connect RP-Initiated Logout 1.0 3.1): optional, up to 10 URIs
  under the redirect URIs' rules;
- backchannel_logout_uri, backchannel_logout_session_required (OpenID Connect Back-Channel
  Logout 1.0 2.2): optional; the URI under clients.backchannel_logout's rules, the flag a boolean;
- id_token_signed_response_alg (OpenID Connect Dynamic Client Registration 1.0 2): optional (RS256),
  one of the stack's id_token_signing_alg_values_supported; never none (OIDC Core 3.1.3.7 item 7:
  the code flow's ID tokens are signed).
- backchannel_token_delivery_mode (OpenID Connect CIBA Core 1.0 4, Registration): optional; poll,
  the one mode offered (backchannel_token_delivery_modes_supported), kept and echoed; ping and push
  are refused, and so is backchannel_client_notification_endpoint, which only they use;
  backchannel_authentication_request_signing_alg is refused (no signed authentication requests,
  7.1.1: no backchannel_authentication_request_signing_alg_values_supported); and
  backchannel_user_code_parameter may only be false (backchannel_user_code_parameter_supported false).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from authgate import grant_types
from authgate.clients.backchannel_logout import uri_problem
from authgate.oauth.redirect_uris import redirect_scheme_allowed, well_formed_uri
from authgate.oauth.scopes import ScopeSyntaxError, parse_scope
from authgate.settings import get_settings

AUTH_METHODS = ("none", "private_key_jwt")
SHARED_SECRET_METHODS = ("client_secret_basic", "client_secret_post", "client_secret_jwt")
MAX_REDIRECT_URIS = 10
MAX_NAME = 100
LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")


class MetadataProblem(ValueError):
    """A member breaks a rule; `redirect` marks a redirect URI problem (RFC 7591 3.2.2 invalid_redirect_uri)."""

    def __init__(self, message: str, redirect: bool = False) -> None:
        super().__init__(message)
        self.redirect = redirect


class StatedMetadata(NamedTuple):
    """The members authgate keeps, checked."""

    redirect_uris: tuple[str, ...]
    auth_method: str
    grant_types: tuple[str, ...]
    scopes: tuple[str, ...]
    name: str
    jwks: Mapping[str, Any] | None
    jwks_uri: str
    dpop_bound_access_tokens: bool
    post_logout_redirect_uris: tuple[str, ...] = ()
    backchannel_logout_uri: str = ""
    backchannel_logout_session_required: bool = False
    id_token_signed_response_alg: str = ""
    backchannel_token_delivery_mode: str = ""


def check(doc: Mapping[str, Any], *, allow_loopback: bool = False) -> StatedMetadata:
    """The document's members under the rules above, or MetadataProblem naming the member."""
    for member in ("client_secret", "client_secret_expires_at"):
        if member in doc:
            raise MetadataProblem(f"{member} must not be present: a self-registered client has no shared secret.")
    method = doc.get("token_endpoint_auth_method", "none")
    if method in SHARED_SECRET_METHODS:
        raise MetadataProblem(f"token_endpoint_auth_method {method} needs a shared secret, which a self-registered "
                              "client cannot have; use none or private_key_jwt.")
    if method not in AUTH_METHODS:
        raise MetadataProblem("token_endpoint_auth_method must be none or private_key_jwt.")
    jwks, jwks_uri = doc.get("jwks"), doc.get("jwks_uri")
    if jwks is not None and jwks_uri is not None:
        raise MetadataProblem("jwks and jwks_uri must not both be present (RFC 7591 2).")
    if method == "private_key_jwt" and jwks is None and jwks_uri is None:
        raise MetadataProblem("private_key_jwt needs the client's public keys in jwks or jwks_uri.")
    if jwks is not None and not isinstance(jwks, dict):
        raise MetadataProblem('jwks must be a JWK Set, a JSON object {"keys": [...]}.')
    if jwks_uri is not None and not (isinstance(jwks_uri, str) and jwks_uri.startswith("https://")
                                     and well_formed_uri(jwks_uri)):
        raise MetadataProblem("jwks_uri must be an https URL.")
    return StatedMetadata(
        redirect_uris=_redirect_uris(doc.get("redirect_uris")),
        auth_method=method,
        grant_types=_grant_types(doc),
        scopes=_scopes(doc.get("scope")),
        name=_name(doc.get("client_name")),
        jwks=jwks if method == "private_key_jwt" else None,
        jwks_uri=jwks_uri if method == "private_key_jwt" and isinstance(jwks_uri, str) else "",
        dpop_bound_access_tokens=_boolean(doc, "dpop_bound_access_tokens"),
        post_logout_redirect_uris=_post_logout_redirect_uris(doc.get("post_logout_redirect_uris")),
        backchannel_logout_uri=_backchannel_logout_uri(doc.get("backchannel_logout_uri"), allow_loopback),
        backchannel_logout_session_required=_boolean(doc, "backchannel_logout_session_required"),
        id_token_signed_response_alg=_id_token_alg(doc.get("id_token_signed_response_alg")),
        backchannel_token_delivery_mode=_ciba_delivery_mode(doc),
    )


def _redirect_uris(raw: Any, member: str = "redirect_uris", noun: str = "redirect URI") -> tuple[str, ...]:
    redirect = member == "redirect_uris"  # RFC 7591 3.2.2: invalid_redirect_uri is about redirect_uris only
    if not isinstance(raw, list) or not raw or not all(isinstance(u, str) for u in raw):
        raise MetadataProblem(f"{member} must be a non-empty array of URIs.", redirect=redirect)
    if len(raw) > MAX_REDIRECT_URIS:
        raise MetadataProblem(f"{member} may hold at most {MAX_REDIRECT_URIS} URIs.", redirect=redirect)
    for uri in raw:
        if "\\" in uri:  # refused by well_formed_uri; said plainly (an OAuth description cannot hold one)
            raise MetadataProblem(f"a {noun} must not contain a backslash: browsers read it as a slash, so the "
                                  "URI would name another host.", redirect=redirect)
        if not well_formed_uri(uri):
            raise MetadataProblem(f"{noun} {uri[:100]} is not an absolute URI without a fragment.", redirect=redirect)
        if redirect_scheme_allowed(uri):
            continue
        raise MetadataProblem(f"{noun} {uri[:100]} must be https, http on a loopback address, or a "
                              "private-use scheme such as com.example.app (RFC 8252 7).", redirect=redirect)
    return tuple(dict.fromkeys(raw))


def _post_logout_redirect_uris(raw: Any) -> tuple[str, ...]:
    """Where the client may be sent back after signing out (RP-Initiated Logout 1.0 3.1); none when absent."""
    return () if raw is None else _redirect_uris(raw, "post_logout_redirect_uris", "post-logout redirect URI")


def _backchannel_logout_uri(raw: Any, allow_loopback: bool) -> str:
    """Where logout tokens go (Back-Channel Logout 1.0 2.2); none when absent."""
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise MetadataProblem("backchannel_logout_uri must be a string.")
    problem = uri_problem(raw, allow_loopback=allow_loopback)
    if problem:
        raise MetadataProblem(f"{problem}.")
    return raw


def _id_token_alg(raw: Any) -> str:
    """The ID tokens' JWS alg (OIDC Dynamic Client Registration 1.0 2); "" (RS256) when absent."""
    if raw is None:
        return ""
    offered = get_settings().id_token_algs
    if raw == "none":
        raise MetadataProblem("id_token_signed_response_alg none is refused: ID tokens of the authorization code "
                              "flow are signed (OpenID Connect Core 3.1.3.7).")
    if not isinstance(raw, str) or raw not in offered:
        raise MetadataProblem(f"id_token_signed_response_alg must be one of {', '.join(offered)} "
                              "(id_token_signing_alg_values_supported).")
    return raw


def _ciba_delivery_mode(doc: Mapping[str, Any]) -> str:
    """CIBA Core 4's client metadata: "poll" or "" (absent), or MetadataProblem for what is not supported."""
    if "backchannel_authentication_request_signing_alg" in doc:
        raise MetadataProblem("backchannel_authentication_request_signing_alg is not supported: this provider takes "
                              "no signed backchannel authentication requests (OpenID Connect CIBA Core 7.1.1).")
    if _boolean(doc, "backchannel_user_code_parameter"):
        raise MetadataProblem("backchannel_user_code_parameter true is not supported: this provider takes no "
                              "user_code (backchannel_user_code_parameter_supported is false; OpenID Connect CIBA "
                              "Core 4).")
    mode = doc.get("backchannel_token_delivery_mode")
    if mode is not None and mode != "poll":
        raise MetadataProblem("backchannel_token_delivery_mode must be poll, the only mode this provider supports "
                              "(backchannel_token_delivery_modes_supported; OpenID Connect CIBA Core 4).")
    if "backchannel_client_notification_endpoint" in doc:
        raise MetadataProblem("backchannel_client_notification_endpoint is used only by the ping and push modes, "
                              "which this provider does not support: state backchannel_token_delivery_mode poll "
                              "(OpenID Connect CIBA Core 4).")
    return mode or ""


def _grant_types(doc: Mapping[str, Any]) -> tuple[str, ...]:
    grants = doc.get("grant_types", [grant_types.AUTHORIZATION_CODE])
    if not isinstance(grants, list) or not all(isinstance(g, str) for g in grants):
        raise MetadataProblem("grant_types must be an array of strings.")
    unsupported = [g for g in grants if g not in grant_types.SELF_REGISTERED]
    if unsupported:
        raise MetadataProblem(f"grant_types {unsupported[0]} is not available to self-registered clients "
                              f"({' and '.join(grant_types.SELF_REGISTERED)} are).")
    if grant_types.AUTHORIZATION_CODE not in grants:
        raise MetadataProblem("grant_types must include authorization_code.")
    responses = doc.get("response_types", ["code"])
    if not isinstance(responses, list) or "code" not in responses or any(r != "code" for r in responses):
        raise MetadataProblem("response_types must be [\"code\"].")
    return tuple(dict.fromkeys(grants))


def _scopes(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, str):
        raise MetadataProblem("scope must be a string of space-separated scopes.")
    try:
        return parse_scope(raw)
    except ScopeSyntaxError as exc:
        raise MetadataProblem(f"scope: {exc}.") from None


def _name(raw: Any) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise MetadataProblem("client_name must be a string.")
    # Shown on the consent page: control and bidirectional-override characters would let a
    # name pretend to be another (the page escapes HTML; this keeps the text honest).
    cleaned = "".join(c for c in raw if c.isprintable() and c not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    return cleaned.strip()[:MAX_NAME]


def _boolean(doc: Mapping[str, Any], member: str) -> bool:
    value = doc.get(member, False)
    if not isinstance(value, bool):
        raise MetadataProblem(f"{member} must be true or false.")
    return value
