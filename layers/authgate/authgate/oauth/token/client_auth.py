"""Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3).

Methods: client_secret_basic (§2.3.1, id and secret form-urlencoded inside Basic),
client_secret_post (§2.3.1, in the body), private_key_jwt (RFC 7523 2.2: client_assertion_type +
client_assertion, authgate.oauth.token.client_assertion), and none for public clients (§2.1, PKCE
required). A client uses only the method(s) it registered (RFC 7591 2 token_endpoint_auth_method).
Using two methods at once is invalid_request (§2.3: MUST NOT use more than one). Every other
failure is 401 invalid_client with `WWW-Authenticate: Basic realm="oauth"` (§5.2); unknown
clients, clients of another environment, wrong and rotated-out secrets look identical.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import unquote_plus

from authgate import audit, clock
from authgate.clients.model import REGISTRATION_SOURCE, Client, client_secret_matches
from authgate.errors import ApiError
from authgate.errors.challenges import basic
from authgate.issuer import base_url
from authgate.limits.auth_failures import AuthFailureGuard
from authgate.oauth.clients import registered
from authgate.oauth.clients.lookup import ClientLookup
from authgate.oauth.clients.profile import allowed_auth_methods
from authgate.oauth.token import client_assertion

if TYPE_CHECKING:
    from authgate.http.request import Request



class Credentials(NamedTuple):
    """What the request presented, before any lookup."""

    method: str
    client_id: str
    # The client secret, or for private_key_jwt the assertion (compact JWS).
    secret: str | None


def invalid_client(detail: str = "Client authentication failed.", internal: str = "") -> ApiError:
    return ApiError("invalid_client", detail, internal=internal, headers={"WWW-Authenticate": basic()})


def _basic(header: str) -> tuple[str, str]:
    """Decode Basic credentials; id and secret are form-urlencoded first (RFC 6749 2.3.1)."""
    token = header[6:].strip()
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        raise ApiError("invalid_request", "The Authorization header is not valid Basic credentials.") from None
    if ":" not in decoded:
        raise ApiError("invalid_request", "Basic credentials must be client_id:client_secret.")
    raw_id, raw_secret = decoded.split(":", 1)
    return unquote_plus(raw_id), unquote_plus(raw_secret)


def read_credentials(request: Request, form: Mapping[str, str]) -> Credentials | None:
    """The single authentication method the request used (RFC 6749 2.3); None when it used none."""
    headers = request.headers.get_all("authorization")
    if len(headers) > 1:
        raise ApiError("invalid_request", "The Authorization header is repeated.")
    header = headers[0] if headers else None
    body_id, body_secret = form.get("client_id"), form.get("client_secret")
    if "client_assertion" in form or "client_assertion_type" in form:
        if header is not None or body_secret is not None:
            raise ApiError("invalid_request", "Use one client authentication method, not client_assertion "
                                              "and a client secret together.")
        return _assertion_credentials(form, body_id)
    if header is not None:
        if header[:6].lower() != "basic ":
            raise invalid_client("Use client_secret_basic, client_secret_post, or none for public clients.",
                                 internal="unsupported Authorization scheme")
        client_id, secret = _basic(header)
        if body_secret is not None:
            raise ApiError("invalid_request", "Use one client authentication method, not Basic and client_secret together.")
        if body_id is not None and body_id != client_id:
            raise ApiError("invalid_request", "client_id in the body differs from the Basic credentials.")
        return Credentials("client_secret_basic", client_id, secret)
    if body_id is None:
        if body_secret is not None:
            raise ApiError("invalid_request", "client_secret was sent without client_id.")
        return None
    if body_secret is not None:
        return Credentials("client_secret_post", body_id, body_secret)
    return Credentials("none", body_id, None)


def _assertion_credentials(form: Mapping[str, str], body_id: str | None) -> Credentials:
    """private_key_jwt credentials (RFC 7521 4.2): the client is the assertion's issuer."""
    if form.get("client_assertion_type") != client_assertion.ASSERTION_TYPE:
        raise ApiError("invalid_request", f"client_assertion_type must be {client_assertion.ASSERTION_TYPE} "
                                          "(RFC 7523 2.2).")
    token = form.get("client_assertion")
    if token is None:
        raise ApiError("invalid_request", "client_assertion_type was sent without client_assertion.")
    try:
        issuer = client_assertion.parse(token).issuer
    except client_assertion.AssertionRejected as exc:
        raise invalid_client(internal=f"unreadable client assertion: {exc}") from None
    if issuer is None:
        raise invalid_client(internal="client assertion without iss")
    if body_id is not None and body_id != issuer:
        # RFC 7521 4.2: client_id, when sent, must identify the same client as the assertion.
        raise ApiError("invalid_request", "client_id differs from the client assertion's issuer.")
    return Credentials("private_key_jwt", issuer, token)


def authenticate(request: Request, form: Mapping[str, str], creds: Credentials | None = None, *,
                 fetch_documents: bool = False) -> Client:
    """The authenticated client, or raise invalid_client/invalid_request/rate_limited (RFC 6749 2.3, 10.10).

    One BatchGetItem reads the client and its failed-authentication counters; a client or
    address over its failure quota is refused (429) before any secret is compared, and before
    any metadata document is fetched. The client lookup (oauth.clients.lookup) fetches a
    document only where the code flow needs it (`fetch_documents`: the token and PAR endpoints).
    """
    return authenticate_with(request, form, creds, {}, fetch_documents=fetch_documents)[0]


def authenticate_with(request: Request, form: Mapping[str, str], creds: Credentials | None,
                      extra: dict[str, list[dict[str, Any]]], *, fetch_documents: bool = False
                      ) -> tuple[Client, dict[str, list[dict[str, Any]]]]:
    """`authenticate`, reading `extra` (other tables' keys a grant will need) in the same BatchGetItem: the
    client and the items found, by table."""
    creds = creds or read_credentials(request, form)
    if creds is None:
        raise invalid_client("Client authentication is required.", internal="no client credentials")
    lookup = ClientLookup(request.source_ip, fetch_documents=fetch_documents)
    guard = AuthFailureGuard("client")
    keys = guard.keys(creds.client_id, request.source_ip)
    record, others = lookup.read_with(creds.client_id, {**extra, guard.table: [*extra.get(guard.table, []), *keys]})
    guard.check(others.get(guard.table, []), creds.client_id, request.source_ip)
    client = lookup.resolved(creds.client_id, record)
    failure = _failure(client, creds, request)
    if failure:
        guard.record_failure(creds.client_id, request.source_ip)
        reason, detail = failure
        audit.record("client.authentication_failed", client.tenant_id if client else "",
                     actor=audit.client(creds.client_id[:256]), target=audit.client(creds.client_id[:256]),
                     outcome="failure", reason=reason, details={"method": creds.method})
        raise invalid_client(internal=f"client {creds.client_id[:64]!r}: {detail}")
    assert client is not None
    if client.source == REGISTRATION_SOURCE:
        registered.touch(client, clock.seconds())
    return client, {table: items for table, items in others.items() if table != guard.table}


def _failure(client: Client | None, creds: Credentials, request: Request) -> tuple[str, str] | None:
    """Why authentication failed (a reason code for the audit trail, and a line for the logs), or None."""
    if client is not None and creds.method not in allowed_auth_methods(client):
        return "method_not_registered", f"method {creds.method} not registered for this client"
    if creds.method == "private_key_jwt":
        if client is None:
            return "unknown_client", "unknown client"
        assert creds.secret is not None
        try:
            client_assertion.verify(client_assertion.parse(creds.secret), client, base_url(request))
        except client_assertion.AssertionRejected as exc:
            return "invalid_assertion", str(exc)
        return None
    if creds.secret is None:
        if client is None:
            return "unknown_client", "unknown client"
        return None if client.is_public else ("no_secret", "confidential client sent no secret")
    # A public client has no secret: presenting one is a failed authentication too.
    if not client_secret_matches(client, creds.secret):
        return ("unknown_client", "unknown client") if client is None else ("wrong_secret",
                                                                            "wrong or rotated-out secret")
    return None
