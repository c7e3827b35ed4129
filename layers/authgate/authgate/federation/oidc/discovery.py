"""An OpenID Provider's configuration, fetched from its issuer (OpenID Connect Discovery 1.0 section 4).

The document is at the issuer + "/.well-known/openid-configuration" (4.1: a trailing "/" of the
issuer is removed first), fetched under authgate.outbound's rules (outbound.documents: https, or
loopback http on the local stack only; every address checked; at most MAX_BYTES in 4 s). Its
`issuer` must be exactly the issuer configured (4.3: otherwise an attacker's document could
speak for another provider); the endpoints authgate uses must be URLs it would request. A warm
function keeps each provider's configuration TTL_SECONDS; a failure is never kept. What is read
and why: the authorization, token, userinfo and end-session endpoints, the JWKS URI (3), the
client authentication methods the token endpoint takes, and whether the provider sends RFC 9207's
`iss` with every authorization response.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import clock
from authgate.caches import BoundedCache, cached
from authgate.federation.errors import UpstreamRefused
from authgate.outbound.connection import Limits
from authgate.outbound.documents import Unavailable, fetch_json
from authgate.outbound.exchange import BadUrl, loopback_allowed, target

if TYPE_CHECKING:
    from authgate.identity_providers.model import IdentityProvider

WELL_KNOWN = "/.well-known/openid-configuration"
# Google's document is about 1.3 KB, Entra ID's 1.7 KB; room for providers that list every claim and locale.
MAX_BYTES = 64 * 1024
TTL_SECONDS = 3600.0
MAX_PROVIDERS = 200
LIMITS = Limits(max_bytes=MAX_BYTES)


class Provider(NamedTuple):
    """What authgate uses of a provider's configuration (Discovery 1.0 section 3)."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    userinfo_endpoint: str = ""
    end_session_endpoint: str = ""
    # RFC 8414 2 / Discovery 3: absent means client_secret_basic only.
    token_endpoint_auth_methods: tuple[str, ...] = ("client_secret_basic",)
    # RFC 9207 3: the provider sends `iss` in every authorization response.
    iss_parameter: bool = False
    backchannel_logout: bool = False

    @property
    def client_auth(self) -> str:
        """How authgate authenticates at the token endpoint: client_secret_basic unless only _post is offered."""
        methods = self.token_endpoint_auth_methods
        return "client_secret_post" if "client_secret_post" in methods and "client_secret_basic" not in methods \
            else "client_secret_basic"


def document_url(issuer: str) -> str:
    """Where `issuer`'s configuration is (Discovery 4.1)."""
    return issuer.rstrip("/") + WELL_KNOWN


@cached
def _cache() -> BoundedCache[str, Provider]:
    return BoundedCache(MAX_PROVIDERS, ttl=TTL_SECONDS)


def discover(idp: IdentityProvider) -> Provider:
    """`idp`'s provider configuration, at most TTL_SECONDS old; UpstreamRefused when it cannot be had or is wrong."""
    now = clock.now()
    found = _cache().get(idp.issuer, now)
    if found is not None:
        return found
    try:
        document = fetch_json(document_url(idp.issuer), limits=LIMITS)
    except Unavailable as exc:
        raise UpstreamRefused("discovery_unavailable", f"{document_url(idp.issuer)}: {exc.internal}") from None
    provider = parse(document, idp.issuer)
    _cache().put(idp.issuer, provider, now)
    return provider


def parse(document: dict[str, Any], issuer: str) -> Provider:
    """The configuration `document` says, once its issuer is `issuer` exactly (4.3) and its endpoints are usable."""
    if document.get("issuer") != issuer:
        raise UpstreamRefused("discovery_issuer_mismatch",
                              f"the document's issuer {str(document.get('issuer'))[:200]!r} is not {issuer!r}")
    endpoints = {name: _endpoint(document, name, required=name in ("authorization_endpoint", "token_endpoint",
                                                                   "jwks_uri"))
                 for name in ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint",
                              "end_session_endpoint")}
    methods = document.get("token_endpoint_auth_methods_supported")
    return Provider(
        issuer=issuer, **endpoints,
        token_endpoint_auth_methods=tuple(m for m in methods if isinstance(m, str))
        if isinstance(methods, list) and methods else ("client_secret_basic",),
        iss_parameter=document.get("authorization_response_iss_parameter_supported") is True,
        backchannel_logout=document.get("backchannel_logout_supported") is True)


def _endpoint(document: dict[str, Any], name: str, *, required: bool) -> str:
    value = document.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise UpstreamRefused("discovery_invalid", f"{name} is {'missing' if value is None else 'not a string'}")
    try:
        target(value, allow_loopback=loopback_allowed(value))
    except BadUrl as exc:
        raise UpstreamRefused("discovery_invalid", f"{name} {value[:200]!r}: {exc}") from None
    return value
