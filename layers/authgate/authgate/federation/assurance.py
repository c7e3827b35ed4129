"""How strongly a person signed in at an upstream identity provider counts here (OIDC Core 2 acr, amr; RFC 8176;
SAML 2.0 AuthnContextClassRef).

An upstream's word about a second factor counts only for an IdP its record trusts for it: `trust_mfa`
set, and the upstream's acr (OIDC `acr`, SAML AuthnContextClassRef) or one of its amr values among
the record's `mfa_values`. Then the sign-in is authgate's `mfa`; otherwise `password`, whatever the
upstream says (its own acr names rank nothing here, and an untrusted "mfa" is a claim anyone can make).
The same rule holds for a federated sign-in and for an ID-JAG's statement of the person's sign-in.

amr: RFC 8176 registers no value for "signed in at another party"; authgate states `fed` (an
unregistered value, as RFC 8176 1 allows), plus the registered `mfa` when the IdP is trusted for it
and said so. The upstream's own methods (`otp`, `hwk`, ...) are not repeated: authgate did not see
them, and a relying party reading them would believe it had.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from authgate.assurance import FEDERATED, MFA, MULTIPLE_FACTORS, PASSWORD, Assurance

if TYPE_CHECKING:
    from authgate.federation.upstream import UpstreamIdentity
    from authgate.identity_providers.model import IdentityProvider


def trusted_mfa(idp: IdentityProvider, acr: str, amr: Iterable[str]) -> bool:
    """Whether the upstream's acr or amr means a second factor to an IdP trusted for it (`trust_mfa`, `mfa_values`)."""
    if not idp.trust_mfa or not idp.mfa_values:
        return False
    return acr in idp.mfa_values or any(method in idp.mfa_values for method in amr)


def level(idp: IdentityProvider, acr: str, amr: Iterable[str]) -> str:
    """authgate's acr for an upstream sign-in stated as `acr` and `amr`: mfa when trusted, else password."""
    return MFA if trusted_mfa(idp, acr, amr) else PASSWORD


def federated_sign_in(idp: IdentityProvider, upstream: UpstreamIdentity, now: int) -> Assurance:
    """The Assurance of a sign-in through `idp`: its level, amr `fed` (and `mfa` when trusted), and the upstream's
    auth_time (when the person authenticated there; never later than now), or now when it states none."""
    mfa = trusted_mfa(idp, upstream.acr, upstream.amr)
    auth_time = min(upstream.auth_time, now) if upstream.auth_time > 0 else now
    return Assurance(auth_time, MFA if mfa else PASSWORD, (FEDERATED, MULTIPLE_FACTORS) if mfa else (FEDERATED,))
