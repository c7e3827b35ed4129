"""POST /oauth/register: dynamic client registration (RFC 7591 3).

In order: the deployment's switch, the address's limit (limits.quota), the metadata
(registration.metadata), the room left in the deployment's pool of registrations no one has
signed in to; then the client, 201 with its client_id and registration access token, shown once.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from authgate import clock
from authgate.clients.errors import ClientExists
from authgate.errors import ApiError
from authgate.http.metrics import record_count
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.limits.counters import digest
from authgate.limits.quota import Quota, QuotaSpent
from authgate.oauth.clients import recorded
from authgate.oauth.clients.registration.errors import not_enabled
from authgate.oauth.clients.registration.metadata import (
    checked,
    client_information,
    read,
    registered_client,
)
from authgate.settings import get_settings
from authgate.stores.clients import ClientStore
from authgate.stores.registrations import UNASSIGNED, UNUSED_LIFETIME, RegistrationStore

if TYPE_CHECKING:
    from authgate.http.request import Request

# Registrations are counted per source address per hour.
WINDOW = 3600


def post_register(request: Request) -> Response:
    """RFC 7591 3.1: register a client; 201 with its client_id and registration access token (3.2.1)."""
    require_enabled()
    _within_limit(request.source_ip)
    stated = checked(read(request))
    _pool_has_room(clock.seconds())
    token = secrets.token_urlsafe(32)
    client = registered_client(stated, f"dcr_{secrets.token_hex(16)}", clock.seconds(), token)
    try:
        ClientStore().create_record(client)
    except ClientExists:  # 128 random bits: never in practice
        raise ApiError("server_error", internal="registered client_id collision") from None
    record_count("ClientRegistrations")
    recorded.record("client.registered", client)
    return Response.json(201, client_information(client, base_url(request), token), headers=NO_STORE)


def require_enabled() -> None:
    """Refuse unless the deployment has switched registration on (template parameter DynamicClientRegistration)."""
    if not get_settings().dynamic_registration:
        raise not_enabled()


def _within_limit(source_ip: str) -> None:
    """Registrations per source address per hour: their own quota, apart from the API limits."""
    try:
        Quota("registration", WINDOW).spend(f"register#{digest(source_ip or 'unknown')}", "registrations",
                                            get_settings().registration_rate, phase="register")
    except QuotaSpent as spent:
        raise ApiError("registration_rate_limited", f"Too many registrations from this address; retry after "
                       f"{spent.retry_after} seconds.", oauth_error="temporarily_unavailable",
                       headers={"Retry-After": str(spent.retry_after)}) from None


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
