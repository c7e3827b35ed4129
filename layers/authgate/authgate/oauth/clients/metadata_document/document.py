"""A fetched Client ID Metadata Document, validated into a Client (draft-ietf-oauth-client-id-metadata-document-02 4, 4.1).

The document is a JSON object whose `client_id` is exactly, as a string, the URL it was
fetched from (4: simple string comparison, RFC 3986 6.2.1); its members follow
`stated_metadata.check`. A private_key_jwt client's keys come from `jwks` or from `jwks_uri`, fetched
with the same fetcher and rules (8.6), and are kept public-only (4.1).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from authgate.clients.errors import MetadataRefused
from authgate.clients.model import DOCUMENT_SOURCE, Client
from authgate.oauth.clients import stated_metadata
from authgate.oauth.clients.metadata_document.client_id_url import ClientIdUrl
from authgate.settings import get_settings
from authgate.tokens.client_keys import InvalidJwks, validate


def _invalid(url: str, why: str) -> MetadataRefused:
    return MetadataRefused("client_metadata_invalid", f"The client's metadata document at {url} is invalid: {why}")


def parse(url: ClientIdUrl, body: bytes) -> dict[str, Any]:
    """The document as a JSON object whose client_id is the URL, or MetadataRefused."""
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _invalid(url.url, "it is not JSON (RFC 8259).") from None
    if not isinstance(doc, dict):
        raise _invalid(url.url, "it is not a JSON object.")
    if doc.get("client_id") != url.url:
        stated = doc.get("client_id")
        # What the document says is not repeated to the caller: an error page of authgate's must not
        # carry text someone else's server chose.
        raise MetadataRefused("client_metadata_client_id_mismatch",
                              f"The client's metadata document at {url.url} names another client_id; it must be "
                              "exactly the document's URL.",
                              internal=f"client_id {str(stated)[:200] if isinstance(stated, str) else 'none'}")
    return doc


def to_client(url: ClientIdUrl, doc: Mapping[str, Any], *, stage: str, now: int, refresh_at: int,
              fetch_keys: Callable[[str], bytes]) -> Client:
    """The Client the document describes (tenant: none until a user signs in), or MetadataRefused."""
    try:
        stated = stated_metadata.check(doc, allow_loopback=get_settings().allow_loopback_outbound)
    except stated_metadata.MetadataProblem as exc:
        raise _invalid(url.url, str(exc)) from None
    keys: tuple[dict[str, Any], ...] = ()
    if stated.auth_method == "private_key_jwt":
        keys = _keys(url, stated.jwks if stated.jwks is not None else _fetched_keys(url, stated.jwks_uri, fetch_keys))
    return Client(
        client_id=url.url, tenant_id="", environment=stage,
        client_type="public" if stated.auth_method == "none" else "confidential", secret_hash=None,
        redirect_uris=stated.redirect_uris, grant_types=stated.grant_types, scopes=stated.scopes,
        post_logout_redirect_uris=stated.post_logout_redirect_uris,
        backchannel_logout_uri=stated.backchannel_logout_uri,
        backchannel_logout_session_required=stated.backchannel_logout_session_required,
        id_token_signed_response_alg=stated.id_token_signed_response_alg,
        backchannel_token_delivery_mode=stated.backchannel_token_delivery_mode,
        name=stated.name, created_at=now, jwks=keys, token_endpoint_auth_method=stated.auth_method,
        dpop_bound_access_tokens=stated.dpop_bound_access_tokens,
        source=DOCUMENT_SOURCE, refresh_at=refresh_at,
    )


def _fetched_keys(url: ClientIdUrl, jwks_uri: str, fetch_keys: Callable[[str], bytes]) -> Any:
    body = fetch_keys(jwks_uri)
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _invalid(url.url, "its jwks_uri does not serve JSON.") from None


def _keys(url: ClientIdUrl, jwks: Any) -> tuple[dict[str, Any], ...]:
    try:
        return validate(jwks)
    except InvalidJwks as exc:
        raise _invalid(url.url, f"its keys: {exc}.") from None
