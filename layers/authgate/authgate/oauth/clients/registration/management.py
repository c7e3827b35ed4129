"""The client configuration endpoint: GET|PUT|DELETE /oauth/register/{client_id} (RFC 7592 2).

Each request is authorized by the client's registration access token (RFC 7592 3), which works
on its own client's configuration URI only; every update replaces the token.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from authgate.clients.errors import ClientNotFound
from authgate.clients.model import REGISTRATION_SOURCE, Client
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth.clients import recorded
from authgate.oauth.clients.lookup import ClientLookup
from authgate.oauth.clients.registration.endpoint import require_enabled
from authgate.oauth.clients.registration.errors import invalid_metadata, invalid_registration_token
from authgate.oauth.clients.registration.metadata import (
    checked,
    client_information,
    read,
    registered_client,
)
from authgate.stores.registrations import RegistrationStore, token_matches

if TYPE_CHECKING:
    from authgate.http.request import Request


def get_registration(request: Request) -> Response:
    """RFC 7592 2.1: the client's current registration."""
    return Response.json(200, client_information(_authorized(request), base_url(request)), headers=NO_STORE)


def put_registration(request: Request) -> Response:
    """RFC 7592 2.2: replace the client's metadata (client_id must match; no secret may be sent).

    Every update issues a new registration access token, in the response, and the one presented
    stops working at once (RFC 7592 3: the client MUST discard it): a token that leaked is good
    only until its owner's next update. Only the metadata changes: the client_id, the pool and
    the expiry stay as they were."""
    client = _authorized(request)
    doc = read(request)
    if doc.get("client_id") != client.client_id:
        raise invalid_metadata("client_id in the body must be this client's (RFC 7592 2.2).")
    body = {k: v for k, v in doc.items() if k not in ("client_id", "registration_access_token",
                                                      "registration_client_uri", "client_id_issued_at")}
    # The metadata changes and the token rotates (RFC 7592 3); the pool and the expiry stay (a
    # replacement is not a new registration, and an expiry computed from created_at could lie in the past).
    token = secrets.token_urlsafe(32)
    updated = registered_client(checked(body), client.client_id, client.created_at, token, client.tenant_id,
                                client.registration_pool)._replace(expires_at=client.expires_at)
    try:
        # Only while the presented token is still the current one: two updates with it, one wins.
        RegistrationStore().replace(updated, client.registration_token_hash)
    except ClientNotFound:
        raise invalid_registration_token("The client no longer exists, or its registration access token was "
                                         "replaced meanwhile.") from None
    recorded.record("client.changed", updated)
    return Response.json(200, client_information(updated, base_url(request), token), headers=NO_STORE)


def delete_registration(request: Request) -> Response:
    """RFC 7592 2.3: deregister; 204, and the client and its token stop working at once."""
    client = _authorized(request)
    RegistrationStore().delete(client.client_id)
    recorded.record("client.deleted", client)
    return Response(204, "", dict(NO_STORE))


def _authorized(request: Request) -> Client:
    """The client whose configuration URI this is, if the bearer token is its registration access token (RFC 7592 3)."""
    require_enabled()
    header = request.headers.get_all("authorization")
    presented = header[0][7:].strip() if len(header) == 1 and header[0][:7].lower() == "bearer " else ""
    client_id = request.path_params.get("client_id", "")
    client = ClientLookup().find(client_id) if presented and client_id.startswith("dcr_") else None
    if client is None or client.source != REGISTRATION_SOURCE or not token_matches(client.registration_token_hash, presented):
        raise invalid_registration_token("The registration access token is missing or not valid for this client.",
                                         presented=bool(presented))
    return client
