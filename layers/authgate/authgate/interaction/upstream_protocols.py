"""The two protocols an upstream sign-in speaks, behind one shape: where to send the person (`request_url`) and who
came back (`answer`). OpenID Connect through federation.oidc.sign_in, SAML 2.0 through federation.saml; each is
imported here, on the path of a sign-in of its protocol only, so that no other page pays for loading it (lxml and
signxml for SAML: the authorize function's cold start).

What the person's request asked of authgate goes on to the IdP (OpenID Connect Core 3.1.2.1): `max_age` as
max_age (SAML has none: ForceAuthn), prompt=login as prompt=login or ForceAuthn, and a step-up's second factor as
acr_values or RequestedAuthnContext of the values the IdP's record says mean one (`mfa_values`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate.federation.errors import UpstreamRefused
from authgate.identity_providers.model import redirect_uri

if TYPE_CHECKING:
    from authgate.federation.upstream import UpstreamIdentity
    from authgate.identity_providers.model import IdentityProvider
    from authgate.single_use.upstream_sign_ins import PendingSignIn


def request_url(idp: IdentityProvider, issuer: str, pending: PendingSignIn, handle: str,
                login_hint: str | None) -> tuple[str, str]:
    """(the URL of the sign-in at `idp`, the SAML AuthnRequest's ID or ""); `handle` is echoed as state or
    RelayState. UpstreamRefused when the IdP cannot be asked (its discovery or metadata does not hold)."""
    if idp.protocol == "saml":
        from authgate.federation.saml import start
        from authgate.federation.saml.metadata import MetadataInvalid
        from authgate.federation.saml.sp_metadata import acs_url, sp_entity_id

        try:
            return start(idp, acs_url=acs_url(issuer, idp.tenant_id), sp_entity_id=sp_entity_id(issuer, idp.tenant_id),
                         relay_state=handle, force_authn=pending.fresh or pending.max_age is not None,
                         requested_authn_context=idp.mfa_values if pending.second_factor else ())
        except MetadataInvalid as invalid:
            raise UpstreamRefused("idp_not_saml", str(invalid)) from None
    from authgate.federation.oidc import sign_in

    url = sign_in.start(idp, redirect_uri=redirect_uri(issuer), state=handle, nonce=pending.nonce,
                        code_verifier=pending.code_verifier, max_age=pending.max_age,
                        prompt="login" if pending.fresh else None,
                        acr_values=" ".join(idp.mfa_values) if pending.second_factor and idp.mfa_values else None,
                        login_hint=login_hint)
    return url, ""


def answer(idp: IdentityProvider, issuer: str, pending: PendingSignIn, handle: str,
           params: Mapping[str, str]) -> UpstreamIdentity:
    """Who the IdP's answer (`params`: the callback's query or form, the ACS's form) says signed in, every rule of its
    protocol checked against `pending`; UpstreamRefused otherwise."""
    if idp.protocol == "saml":
        from authgate.federation.saml import finish
        from authgate.federation.saml.sp_metadata import acs_url, sp_entity_id

        return finish(idp, saml_response_b64=params.get("SAMLResponse", ""), acs_url=acs_url(issuer, idp.tenant_id),
                      sp_entity_id=sp_entity_id(issuer, idp.tenant_id), expected_request_id=pending.request_id)
    from authgate.federation.oidc import sign_in

    return sign_in.finish(idp, params=params, redirect_uri=redirect_uri(issuer), expected_state=handle,
                          nonce=pending.nonce, code_verifier=pending.code_verifier, max_age=pending.max_age)
