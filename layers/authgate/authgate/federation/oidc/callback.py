"""The authorization response, checked before its code is redeemed (RFC 6749 4.1.2; OpenID Connect Core 3.1.2.5-6;
RFC 9207).

In order: `state` must be the one this browser's pending sign-in holds (RFC 6749 10.12; compared
in constant time) -- the caller keeps it with the IdP the request went to, so a response meant
for another IdP's request never matches; `iss`, when present, must be the provider's issuer
exactly, and must be present when the provider says it always sends it (RFC 9207 2.4: a mix-up
attack presents IdP B's response to a request for IdP A); then an error response (Core 3.1.2.6)
is refused with its `error` kept for logs (`upstream_denied` when the person said no); else the
`code`.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate.federation.errors import UpstreamRefused

if TYPE_CHECKING:
    from authgate.federation.oidc.discovery import Provider

MAX_CODE = 2048
MAX_LOGGED = 100


def code_from(params: Mapping[str, str], *, provider: Provider, expected_state: str) -> str:
    """The authorization code of a response to this sign-in's request; UpstreamRefused otherwise."""
    state = params.get("state", "")
    if not expected_state or not hmac.compare_digest(state.encode("utf-8"), expected_state.encode("utf-8")):
        raise UpstreamRefused("state_mismatch", "the response's state is not the pending sign-in's"
                              if state else "the response has no state")
    iss = params.get("iss")
    if iss is not None and iss != provider.issuer:
        raise UpstreamRefused("issuer_mismatch", f"the response's iss {iss[:200]!r} is not {provider.issuer!r} "
                                                 "(RFC 9207 2.4)")
    if iss is None and provider.iss_parameter:
        raise UpstreamRefused("issuer_missing", "the provider always sends iss (RFC 9207 3) and this response has none")
    error = params.get("error")
    if error is not None:
        description = params.get("error_description", "")
        # The person said no (access_denied) is not the provider failing: the page says so differently.
        reason = "upstream_denied" if error == "access_denied" else "upstream_error"
        raise UpstreamRefused(reason, f"{error[:MAX_LOGGED]!r}: {description[:MAX_LOGGED]!r}")
    code = params.get("code", "")
    if not code or len(code) > MAX_CODE:
        raise UpstreamRefused("code_missing", "the response has no code" if not code else "the code is too long")
    return code
