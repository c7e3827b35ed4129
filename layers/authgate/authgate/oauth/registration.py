"""Dynamic client registration: POST /oauth/register (RFC 7591 3) and the client configuration
endpoint GET|PUT|DELETE /oauth/register/{client_id} (RFC 7592 2).

Off unless the deployment switches it on (template parameter DynamicClientRegistration). A
registered client is public (`none`) or `private_key_jwt` with `jwks`, under the same rules as a
Client ID Metadata Document (client_metadata.rules); software statements are not supported
(RFC 7591 2.3 lets a server ignore them: they are refused here, so nobody relies on one).
Registration has its own limit per source address and its own metric (ClientRegistrations);
the deployment caps how many unassigned registrations it holds, a tenant how many it holds
(stores.registrations). The registration access token is shown once and stored hashed; it
works only on its own client's configuration URI (RFC 7592 3: anything else is invalid_token),
and each update (PUT) replaces it with a new one, returned once, the old one refused from then on.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from authgate import clock
from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.errors.challenges import bearer
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth.client_metadata import rules
from authgate.settings import get_settings
from authgate.stores.clients import ClientStore
from authgate.stores.exceptions import ClientExists, ClientNotFound
from authgate.stores.registrations import (
    DAY,
    UNASSIGNED,
    UNUSED_LIFETIME,
    RegistrationStore,
    token_hash,
    token_matches,
)

if TYPE_CHECKING:
    from authgate.http.request import Request

SOURCE = "registration"
WINDOW = 3600


def _problem(exc: rules.MetadataProblem) -> ApiError:
    if exc.redirect:
        return ApiError("invalid_redirect_uri", str(exc), oauth_error="invalid_redirect_uri")
    return ApiError("invalid_client_metadata", str(exc), oauth_error="invalid_client_metadata")


def _body(request: Request) -> dict[str, Any]:
    from authgate.http.body import json_object

    try:
        return json_object(request)
    except ApiError as exc:
        if exc.status == 415:
            raise
        raise ApiError("invalid_client_metadata", exc.detail, oauth_error="invalid_client_metadata") from None


def _enabled() -> None:
    if not get_settings().dynamic_registration:
        raise ApiError("registration_not_enabled", "Dynamic client registration is not enabled on this "
                       "deployment; ask an administrator for a client, or identify the client with a Client ID "
                       "Metadata Document (an https client_id).", oauth_error="access_denied")


def _checked(doc: dict[str, Any]) -> rules.StatedMetadata:
    if "software_statement" in doc:
        raise ApiError("invalid_client_metadata", "Software statements are not supported (RFC 7591 2.3); send "
                       "the metadata itself.", oauth_error="invalid_client_metadata")
    try:
        stated = rules.check(doc)
    except rules.MetadataProblem as exc:
        raise _problem(exc) from None
    if stated.jwks_uri:
        raise ApiError("invalid_client_metadata", "Register the public keys themselves in jwks; jwks_uri is "
                       "accepted only in a Client ID Metadata Document.", oauth_error="invalid_client_metadata")
    return stated


def _client(stated: rules.StatedMetadata, client_id: str, now: int, token: str, tenant: str = "",
            pool: str = UNASSIGNED) -> Client:
    keys: tuple[dict[str, Any], ...] = ()
    if stated.jwks is not None:
        from authgate.tokens.client_keys import InvalidJwks, validate

        try:
            keys = validate(stated.jwks)
        except InvalidJwks as exc:
            raise ApiError("invalid_client_metadata", f"jwks: {exc}.", oauth_error="invalid_client_metadata") from None
    return Client(
        client_id=client_id, tenant_id=tenant, environment=get_settings().stage,
        client_type="public" if stated.auth_method == "none" else "confidential", secret_hash=None,
        redirect_uris=stated.redirect_uris, grant_types=stated.grant_types, scopes=stated.scopes,
        name=stated.name, created_at=now, jwks=keys, token_endpoint_auth_method=stated.auth_method,
        dpop_bound_access_tokens=stated.dpop_bound_access_tokens, source=SOURCE,
        # Unused until a user signs in to it (stores.registrations): a day, then the idle lifetime.
        expires_at=now + UNUSED_LIFETIME,
        registration_token_hash=token_hash(token) if token else "", registration_pool=pool)


def _view(client: Client, issuer: str, token: str | None = None) -> dict[str, Any]:
    """The client information response (RFC 7591 3.2.1, RFC 7592 3)."""
    body: dict[str, Any] = {
        "client_id": client.client_id, "client_id_issued_at": client.created_at,
        "registration_client_uri": f"{issuer}/oauth/register/{client.client_id}",
        "client_name": client.name, "redirect_uris": list(client.redirect_uris),
        "grant_types": list(client.grant_types), "response_types": ["code"],
        "token_endpoint_auth_method": client.token_endpoint_auth_method,
    }
    if token:
        body["registration_access_token"] = token
    if client.scopes:
        body["scope"] = " ".join(client.scopes)
    if client.jwks:
        body["jwks"] = {"keys": list(client.jwks)}
    if client.dpop_bound_access_tokens:
        body["dpop_bound_access_tokens"] = True
    return body


def post_register(request: Request) -> Response:
    """RFC 7591 3.1: register a client; 201 with its client_id and registration access token (3.2.1)."""
    _enabled()
    _limit(request.source_ip)
    stated = _checked(_body(request))
    _pool_has_room(clock.seconds())
    token = secrets.token_urlsafe(32)
    client = _client(stated, f"dcr_{secrets.token_hex(16)}", clock.seconds(), token)
    try:
        ClientStore().create_record(client)
    except ClientExists:  # 128 random bits: never in practice
        raise ApiError("server_error", internal="registered client_id collision") from None
    _count_registration()
    return Response.json(201, _view(client, base_url(request), token), headers=NO_STORE)


def _pool_has_room(now: int) -> None:
    """The deployment's unassigned pool is below its cap, or 503 registration_pool_full with Retry-After:
    when the next unused registration expires (RFC 9110 15.6.4, 10.2.3; counted in the
    RegistrationPoolFull metric, http.metrics)."""
    store, cap = RegistrationStore(), get_settings().registration_cap
    if store.live_count(UNASSIGNED, now, cap) < cap:
        return
    retry = max(1, min(UNUSED_LIFETIME, (store.next_expiry(UNASSIGNED, now) or now + 60) - now))
    raise ApiError("registration_pool_full", "This deployment holds as many registered clients no one has signed "
                   f"in to yet as it allows; retry after {retry} seconds.", oauth_error="temporarily_unavailable",
                   headers={"Retry-After": str(retry)})


def _authorized(request: Request) -> Client:
    """The client whose configuration URI this is, if the bearer token is its registration access token (RFC 7592 3)."""
    _enabled()
    header = request.headers.get_all("authorization")
    presented = header[0][7:].strip() if len(header) == 1 and header[0][:7].lower() == "bearer " else ""
    client_id = request.path_params.get("client_id", "")
    client = ClientStore().get(client_id) if presented and client_id.startswith("dcr_") else None
    if client is None or client.source != SOURCE or not token_matches(client.registration_token_hash, presented):
        challenge = bearer("oauth", "invalid_token") if presented else bearer("oauth")
        raise ApiError("invalid_registration_token", "The registration access token is missing or not valid for "
                       "this client.", oauth_error="invalid_token", headers={"WWW-Authenticate": challenge})
    return client


def get_registration(request: Request) -> Response:
    """RFC 7592 2.1: the client's current registration."""
    return Response.json(200, _view(_authorized(request), base_url(request)), headers=NO_STORE)


def put_registration(request: Request) -> Response:
    """RFC 7592 2.2: replace the client's metadata (client_id must match; no secret may be sent).

    Every update issues a new registration access token, in the response, and the one presented
    stops working at once (RFC 7592 3: the client MUST discard it): a token that leaked is good
    only until its owner's next update. Only the metadata changes: the client_id, the pool and
    the expiry stay as they were."""
    client = _authorized(request)
    doc = _body(request)
    if doc.get("client_id") != client.client_id:
        raise ApiError("invalid_client_metadata", "client_id in the body must be this client's (RFC 7592 2.2).",
                       oauth_error="invalid_client_metadata")
    body = {k: v for k, v in doc.items() if k not in ("client_id", "registration_access_token",
                                                      "registration_client_uri", "client_id_issued_at")}
    # The metadata changes and the token rotates (RFC 7592 3); the pool and the expiry stay (a
    # replacement is not a new registration, and an expiry computed from created_at could lie in the past).
    token = secrets.token_urlsafe(32)
    updated = _client(_checked(body), client.client_id, client.created_at, token, client.tenant_id,
                      client.registration_pool)._replace(expires_at=client.expires_at)
    try:
        # Only while the presented token is still the current one: two updates with it, one wins.
        RegistrationStore().replace(updated, client.registration_token_hash)
    except ClientNotFound:
        raise ApiError("invalid_registration_token", "The client no longer exists, or its registration access "
                       "token was replaced meanwhile.", oauth_error="invalid_token",
                       headers={"WWW-Authenticate": bearer("oauth", "invalid_token")}) from None
    return Response.json(200, _view(updated, base_url(request), token), headers=NO_STORE)


def delete_registration(request: Request) -> Response:
    """RFC 7592 2.3: deregister; 204, and the client and its token stop working at once."""
    RegistrationStore().delete(_authorized(request).client_id)
    return Response(204, "", {"Cache-Control": "no-store", "Pragma": "no-cache"})


def touch(client: Client, now: int) -> None:
    """Used: push the client's expiry back (at most once a day: one UpdateItem, not one per request)."""
    expires_at = now + get_settings().registration_idle_days * DAY
    if client.source == SOURCE and expires_at - client.expires_at >= DAY:
        try:
            RegistrationStore().touch(client.client_id, expires_at)
        except ClientNotFound:
            pass  # deleted meanwhile: this request still completes, the next is refused


def _limit(source_ip: str) -> None:
    """Registrations per source address per hour: its own limit (LimitsTable, one UpdateItem)."""
    from authgate.limits import degraded
    from authgate.limits.counters import digest
    from authgate.limits.window import window_at
    from authgate.stores.limits import LimitReached, LimitsStore, LimitsUnavailable

    now = clock.now()
    window = window_at(now, WINDOW, "register")
    try:
        LimitsStore().count(f"register#{digest(source_ip or 'unknown')}#{window.start}",
                            {"registrations": get_settings().registration_rate}, window.end + 3600)
    except LimitReached:
        retry = window.reset_after(now)
        raise ApiError("registration_rate_limited", f"Too many registrations from this address; retry after "
                       f"{retry} seconds.", oauth_error="temporarily_unavailable",
                       headers={"Retry-After": str(retry)}) from None
    except LimitsUnavailable as exc:
        degraded.record("registration", exc.internal)


def _count_registration() -> None:
    """The ClientRegistrations metric (EMF: one log line, no API call)."""
    from aws_lambda_powertools.metrics import MetricUnit, single_metric

    with single_metric(name="ClientRegistrations", unit=MetricUnit.Count, value=1, namespace="authgate") as metric:
        metric.add_dimension(name="service", value="authgate")
