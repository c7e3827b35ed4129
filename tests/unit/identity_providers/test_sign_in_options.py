"""A tenant's sign-in options: the buttons and the email domains of home-realm discovery."""

from __future__ import annotations

import pytest

from authgate.identity_providers.model import IdentityProvider
from authgate.identity_providers.sign_in_options import (
    MAX_OPTIONS,
    SignInOption,
    by_id,
    dump,
    for_email,
    load,
    options_of,
)


def idp(issuer: str, **fields: object) -> IdentityProvider:
    values: dict[str, object] = {"protocol": "oidc", "sign_in": True, "idp_id": issuer.rsplit("/", 1)[-1], **fields}
    return IdentityProvider("t1", issuer, **values)  # type: ignore[arg-type]


def test_only_idps_offered_for_sign_in_are_options_by_label() -> None:
    options = options_of([
        idp("https://b.example/zeta", label="Zeta SSO", domains=("Zeta.Example",)),
        idp("https://a.example/alpha", label="alpha"),
        idp("https://c.example/jag", protocol="", sign_in=False),  # ID-JAG trust only
        idp("https://d.example/off", sign_in=False),
        idp("https://e.example/noid", idp_id=""),
    ])
    assert options == (SignInOption("alpha", "alpha", "https://a.example/alpha", "oidc", ()),
                       SignInOption("zeta", "Zeta SSO", "https://b.example/zeta", "oidc", ("zeta.example",)))


def test_a_summary_is_bounded() -> None:
    options = options_of(idp(f"https://x.example/i{n:02d}") for n in range(MAX_OPTIONS + 5))
    assert len(options) == MAX_OPTIONS


@pytest.mark.parametrize(("email", "found"), [
    ("carol@acme.example", "acme"),
    ("  Carol@ACME.example ", "acme"),
    ("carol@sub.acme.example", None),  # a domain is claimed exactly, not its subdomains
    ("carol@acme.example.evil", None),
    ("@acme.example", None),
    ("acme.example", None),
    ("carol@", None),
])
def test_an_email_goes_to_the_idp_that_claims_its_domain_exactly(email: str, found: str | None) -> None:
    options = (SignInOption("acme", "Acme", "https://acme.example", "oidc", ("acme.example",)),
               SignInOption("other", "Other", "https://other.example", "saml", ("other.example",)))
    option = for_email(options, email)
    assert (option.idp_id if option else None) == found


def test_the_summary_reads_back_and_a_broken_one_is_empty() -> None:
    options = (SignInOption("acme", "Acme \"SSO\"", "https://acme.example", "oidc", ("acme.example",)),)
    assert load(dump(options)) == options
    assert by_id(options, "acme") == options[0]
    assert by_id(options, "nope") is None
    for broken in ("", "{", "[1]", '[["a"]]', '{"a": 1}'):
        assert load(broken) == ()
