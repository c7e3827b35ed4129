"""A registration request's metadata, checked into a Client, and the client information response
(RFC 7591 2, 3.1, 3.2.1; RFC 7592 3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.clients.model import REGISTRATION_SOURCE, Client
from authgate.errors import ApiError
from authgate.http.body import json_object
from authgate.oauth.clients import stated_metadata
from authgate.oauth.clients.registration.errors import invalid_metadata, metadata_problem
from authgate.settings import get_settings
from authgate.stores.registrations import UNASSIGNED, UNUSED_LIFETIME, token_hash
from authgate.tokens.client_keys import InvalidJwks, validate

if TYPE_CHECKING:
    from authgate.http.request import Request


def read(request: Request) -> dict[str, Any]:
    """The request's JSON object (RFC 7591 3.1); a body that is not one is invalid_client_metadata, a media
    type other than JSON stays 415."""
    try:
        return json_object(request)
    except ApiError as exc:
        if exc.status == 415:
            raise
        raise invalid_metadata(exc.detail) from None


def checked(doc: dict[str, Any]) -> stated_metadata.StatedMetadata:
    """The members authgate keeps, under the rules of oauth.clients.stated_metadata and registration's own:
    no software statement (RFC 7591 2.3), keys registered in `jwks`, never `jwks_uri`."""
    if "software_statement" in doc:
        raise invalid_metadata("Software statements are not supported (RFC 7591 2.3); send the metadata itself.")
    try:
        stated = stated_metadata.check(doc, allow_loopback=get_settings().allow_loopback_outbound)
    except stated_metadata.MetadataProblem as exc:
        raise metadata_problem(exc) from None
    if stated.jwks_uri:
        raise invalid_metadata("Register the public keys themselves in jwks; jwks_uri is accepted only in a "
                               "Client ID Metadata Document.")
    return stated


def registered_client(stated: stated_metadata.StatedMetadata, client_id: str, now: int, token: str,
                      tenant: str = "", pool: str = UNASSIGNED) -> Client:
    """The Client a registration describes, with the hash of its registration access token."""
    keys: tuple[dict[str, Any], ...] = ()
    if stated.jwks is not None:
        try:
            keys = validate(stated.jwks)
        except InvalidJwks as exc:
            raise invalid_metadata(f"jwks: {exc}.") from None
    return Client(
        client_id=client_id, tenant_id=tenant, environment=get_settings().stage,
        client_type="public" if stated.auth_method == "none" else "confidential", secret_hash=None,
        redirect_uris=stated.redirect_uris, grant_types=stated.grant_types, scopes=stated.scopes,
        post_logout_redirect_uris=stated.post_logout_redirect_uris,
        backchannel_logout_uri=stated.backchannel_logout_uri,
        backchannel_logout_session_required=stated.backchannel_logout_session_required,
        id_token_signed_response_alg=stated.id_token_signed_response_alg,
        backchannel_token_delivery_mode=stated.backchannel_token_delivery_mode,
        name=stated.name, created_at=now, jwks=keys, token_endpoint_auth_method=stated.auth_method,
        dpop_bound_access_tokens=stated.dpop_bound_access_tokens, source=REGISTRATION_SOURCE,
        # Unused until a user signs in to it (stores.registrations): a day, then the idle lifetime.
        expires_at=now + UNUSED_LIFETIME,
        registration_token_hash=token_hash(token) if token else "", registration_pool=pool)


def client_information(client: Client, issuer: str, token: str | None = None) -> dict[str, Any]:
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
    if client.post_logout_redirect_uris:
        body["post_logout_redirect_uris"] = list(client.post_logout_redirect_uris)
    if client.backchannel_logout_uri:
        body["backchannel_logout_uri"] = client.backchannel_logout_uri
        body["backchannel_logout_session_required"] = client.backchannel_logout_session_required
    if client.id_token_signed_response_alg:
        body["id_token_signed_response_alg"] = client.id_token_signed_response_alg
    if client.backchannel_token_delivery_mode:
        body["backchannel_token_delivery_mode"] = client.backchannel_token_delivery_mode
    return body
