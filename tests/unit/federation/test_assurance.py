"""federation.assurance: an upstream sign-in is mfa only for an IdP trusted for it, with a value that means it."""

from __future__ import annotations

import pytest

from authgate.assurance import Assurance
from authgate.federation.assurance import federated_sign_in, level
from authgate.federation.upstream import UpstreamIdentity
from authgate.identity_providers.model import IdentityProvider

ISSUER = "https://acme.okta.example"
PHR = "http://schemas.openid.net/pape/policies/2007/06/multi-factor"
TRUSTED = IdentityProvider("demo", ISSUER, trust_mfa=True, mfa_values=(PHR, "mfa"))
NOW = 1_750_000_000


@pytest.mark.parametrize(("idp", "acr", "amr", "expected"), [
    (TRUSTED, PHR, (), "mfa"),
    (TRUSTED, "", ("pwd", "otp", "mfa"), "mfa"),
    (TRUSTED, "urn:acme:loa:1", ("pwd",), "password"),  # a value the record does not list
    (TRUSTED, "", (), "password"),
    # Not trusted for mfa: whatever the upstream says, its own words or authgate's.
    (TRUSTED._replace(trust_mfa=False), PHR, ("mfa",), "password"),
    (IdentityProvider("demo", ISSUER), "mfa", ("mfa",), "password"),
    # Trusted, but with no value that means it: nothing does.
    (IdentityProvider("demo", ISSUER, trust_mfa=True), "mfa", ("mfa",), "password"),
])
def test_mfa_only_when_the_idp_is_trusted_for_it_and_says_a_value_that_means_it(
        idp: IdentityProvider, acr: str, amr: tuple[str, ...], expected: str) -> None:
    assert level(idp, acr, amr) == expected


def test_a_federated_sign_in_states_fed_and_mfa_only_when_trusted() -> None:
    upstream = UpstreamIdentity("demo", ISSUER, "00u1", acr=PHR, amr=("pwd", "otp"), auth_time=NOW - 40)
    assert federated_sign_in(TRUSTED, upstream, NOW) == Assurance(NOW - 40, "mfa", ("fed", "mfa"))
    # The upstream's own methods are not repeated: authgate did not see them.
    assert federated_sign_in(TRUSTED, upstream._replace(acr=""), NOW) == Assurance(NOW - 40, "password", ("fed",))


def test_the_sign_in_time_is_the_upstreams_never_later_than_now() -> None:
    upstream = UpstreamIdentity("demo", ISSUER, "00u1")
    assert federated_sign_in(TRUSTED, upstream, NOW).auth_time == NOW
    assert federated_sign_in(TRUSTED, upstream._replace(auth_time=NOW + 30), NOW).auth_time == NOW
