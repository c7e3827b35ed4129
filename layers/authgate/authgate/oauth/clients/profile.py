"""What a client's registration and profile demand of its requests; the `fapi2` profile (FAPI 2.0
Security Profile, final) is enforced here, at run time, whatever the admin tool wrote.

For a `fapi2` client: pushed authorization requests only (5.3.2.2 item 2), PKCE with S256
(5.3.2.2 item 4), redirect_uri in the pushed request (5.3.2.2 item 5), a confidential client
authenticating with private_key_jwt (5.3.2.1 item 2, 5.3.3: no secrets), DPoP-bound tokens
(5.3.2.1 item 1, sender-constrained; the binding itself is authgate.oauth's DPoP code), codes
valid at most 60 s (5.3.2.1 item 8 ... "shall not issue codes with a lifetime over 60 s").
"""

from __future__ import annotations

from urllib.parse import urlsplit

from authgate.clients.model import FAPI2, Client
from authgate.errors import ApiError
from authgate.settings import get_settings

FAPI2_CODE_TTL = 60


def is_fapi2(client: Client) -> bool:
    return client.profile == FAPI2


def allowed_auth_methods(client: Client) -> tuple[str, ...]:
    """The client authentication methods this client may use (RFC 7591 2; FAPI 2.0 5.3.2.1)."""
    if is_fapi2(client):
        return ("private_key_jwt",)
    return client.auth_methods


def requires_pushed_request(client: Client) -> bool:
    """Whether the client must use PAR: per client, per deployment, or by profile (RFC 9126 5, 6)."""
    return client.require_pushed_authorization_requests or get_settings().require_par or is_fapi2(client)


def rotates_refresh_tokens(client: Client) -> bool:
    """Whether each use of the client's refresh token replaces it (RFC 9700 4.14.2).

    Every client but a fapi2 one: FAPI 2.0 Security Profile 5.3.2.1 item 9 forbids rotation
    "except in extraordinary circumstances" (a lost response would otherwise cost the client its
    grant). A fapi2 client's refresh token is sender-constrained instead: only the client that
    authenticates with its private_key_jwt can use it (RFC 9700 4.14.2, first option).
    """
    return not is_fapi2(client)


def requires_dpop(client: Client) -> bool:
    """Whether every access token of this client must be DPoP-bound (RFC 9449 5.2; FAPI 2.0 5.3.2.1)."""
    return client.dpop_bound_access_tokens or is_fapi2(client)


def code_ttl(client: Client) -> int:
    """The authorization code lifetime for this client (RFC 6749 4.1.2; FAPI 2.0 5.3.2.1: <= 60 s)."""
    ttl = get_settings().auth_code_ttl
    return min(ttl, FAPI2_CODE_TTL) if is_fapi2(client) else ttl


def fapi2_redirect_uri_allowed(uri: str) -> bool:
    """https, or http on a loopback address (RFC 8252 7.3, RFC 9700 2.1), which the local demo uses.

    FAPI 2.0 requires TLS for every endpoint (5.2.1, 5.3.2.1 via RFC 9700): a loopback redirect
    never leaves the user's machine, so it is the one exception allowed."""
    parts = urlsplit(uri)
    if parts.scheme == "https":
        return True
    # IP literals only: RFC 8252 8.3 advises against "localhost", which DNS may not resolve to loopback.
    return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1")


def check_grant(client: Client, grant_type: str) -> None:
    """FAPI 2.0 5.3.2.1 item 2: no resource owner password credentials grant for a fapi2 client."""
    if is_fapi2(client) and grant_type == "password":
        raise ApiError("unauthorized_client", "This client's profile (FAPI 2.0) does not allow the password grant.")


def check_authorization(client: Client, redirect_uri_sent: bool, code_challenge: str,
                        redirect_uri: str = "") -> None:
    """The profile's rules on a (pushed) authorization request, after the generic ones (FAPI 2.0 5.3.2.2)."""
    if not is_fapi2(client):
        return
    if redirect_uri and not fapi2_redirect_uri_allowed(redirect_uri):
        raise ApiError("invalid_request", "This client's profile (FAPI 2.0) requires an https redirect_uri.")
    if not code_challenge:
        raise ApiError("invalid_request", "This client's profile (FAPI 2.0) requires PKCE: send code_challenge "
                                          "with code_challenge_method=S256.")
    if not redirect_uri_sent:
        raise ApiError("invalid_request", "This client's profile (FAPI 2.0) requires redirect_uri in the pushed "
                                          "authorization request.")
