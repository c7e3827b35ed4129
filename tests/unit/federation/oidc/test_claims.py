"""federation.oidc.claims: the claims mapped to an UpstreamIdentity (Apple's string booleans, Google's hd)."""

from __future__ import annotations

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.claims import identity
from authgate.federation.upstream import UpstreamIdentity
from authgate.identity_providers.model import IdentityProvider

IDP = IdentityProvider("demo", "https://idp.example", protocol="oidc", client_id="authgate")


def test_the_claims_make_an_upstream_identity() -> None:
    claims = {"sub": "s-1", "email": "carol@acme.example", "email_verified": True, "name": "Carol",
              "groups": ["admins", "staff", 3], "acr": "mfa", "amr": ["pwd", "otp"], "auth_time": 1_750_000_000,
              "sid": "sess-1"}
    assert identity(IDP, claims, "the.id.token") == UpstreamIdentity(
        "demo", "https://idp.example", "s-1", "carol@acme.example", True, "Carol", ("admins", "staff"), "mfa",
        ("pwd", "otp"), 1_750_000_000, "sess-1", "the.id.token")
    mapped = IDP._replace(claims=(("email", "upn"), ("groups", "roles")))
    got = identity(mapped, {"sub": "s", "upn": "carol@acme.example", "roles": "admin", "email": "x@y"}, "t")
    assert (got.email, got.groups, got.email_verified) == ("carol@acme.example", ("admin",), False)


@pytest.mark.parametrize(("value", "verified"), [(True, True), ("true", True), ("false", False), (False, False),
                                                 (1, False), (None, False)])
def test_email_verified_is_true_only_as_json_true_or_apple_s_string(value: object, verified: bool) -> None:
    assert identity(IDP, {"sub": "s", "email_verified": value}, "t").email_verified is verified


def test_google_s_hd_must_be_a_domain_of_the_record() -> None:
    google = IDP._replace(preset="google", issuer="https://accounts.google.com", domains=("acme.example",))
    assert identity(google, {"sub": "s", "hd": "acme.example"}, "t").subject == "s"
    for hd in ("evil.example", None):
        with pytest.raises(UpstreamRefused) as caught:
            identity(google, {"sub": "s", "email": "carol@acme.example", **({"hd": hd} if hd else {})}, "t")
        assert caught.value.reason == "hosted_domain_refused"
    assert identity(google._replace(domains=()), {"sub": "s"}, "t").subject == "s"
