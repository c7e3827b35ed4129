"""console.idp: one identity provider as `authgate idps show` prints it, never a secret (a client secret or Apple key
set or not, a SAML certificate by fingerprint and expiry), what to register at the IdP under this issuer, the actions
for who may change it; `idps.view` judged in its tenant before the record is read."""

from __future__ import annotations

import datetime

import pytest

from authgate.console.idp import certificate, get_idp
from authgate.errors import ApiError
from tests.unit.console.page_support import TIMES, get, main_text, signed, tenants

OIDC_REGISTER = (
    "Register at the identity provider Redirect URI http://127.0.0.1:3000/oauth/federation/callback Post-logout "
    "redirect URI http://127.0.0.1:3000/oauth/federation/logged-out Back-channel logout URI "
    "http://127.0.0.1:3000/oauth/federation/acme/corp/backchannel-logout")


def _certificate() -> tuple[str, str]:
    """A self-signed certificate's PEM, and its SHA-256 fingerprint as the page writes it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "idp")])
    start = datetime.datetime.fromtimestamp(TIMES, datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(start).not_valid_after(start + datetime.timedelta(days=365))
            .sign(key, hashes.SHA256()))
    return (cert.public_bytes(serialization.Encoding.PEM).decode(),
            cert.fingerprint(hashes.SHA256()).hex(":").upper())


@pytest.fixture
def acme(aws: None) -> None:
    """Tenant acme trusts an OpenID Provider (a secret set, a hostile label) and an issuer of ID-JAGs only."""
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    tenants("acme", "globex")
    IdentityProviderStore().create(IdentityProvider(
        "acme", "https://op.example", idp_id="corp", protocol="oidc", label="<b>Corp</b>", domains=("corp.example",),
        sign_in=True, client_id="c-1", client_secret="sealed-secret-value", created_at=TIMES, trust_mfa=True,
        mfa_values=("mfa", "phr"), claims=(("email", "mail"),)))
    IdentityProviderStore().create(IdentityProvider("acme", "https://jag.example", jwks_uri="https://jag.example/k"))


def test_an_openid_providers_page_shows_no_secret(acme: None) -> None:
    answer = get_idp(get("idp", [("tenant", "acme"), ("idp_id", "corp")]), signed("admin"))
    assert main_text(answer) == (
        "<b>Corp</b> (acme) Identity provider Protocol OpenID Connect Issuer https://op.example ID corp "
        "Label <b>Corp</b> Domains corp.example Offered for sign-in yes Client ID c-1 Client secret set "
        "Scopes openid email profile Keys discovery User match sub Create users no Trust email no Trust MFA mfa phr "
        "Step-up local Claim mapping email=mail Created 2025-06-15 15:06:40 UTC " + OIDC_REGISTER + " Actions Change "
        "Delete")
    body = str(answer.body)
    assert "sealed-secret-value" not in body and "<b>Corp" not in body
    assert '<a href="http://127.0.0.1:3000/console/idp-update?tenant=acme&amp;idp_id=corp">Change</a>' in body


def test_an_issuer_of_id_jags_is_named_by_its_issuer_and_offers_nothing_to_register(acme: None) -> None:
    assert main_text(get_idp(get("idp", [("tenant", "acme"), ("issuer", "https://jag.example")]),
                             signed("auditor"))) == (
        "https://jag.example (acme) Identity provider Protocol ID-JAG only Issuer https://jag.example ID - Label - "
        "Domains - Offered for sign-in no Keys https://jag.example/k User match sub Create users no Trust email no "
        "Trust MFA no Step-up local Claim mapping the defaults Created never Register at the identity provider "
        "Nothing: it is not offered for sign-in.")  # an auditor: no actions


def test_a_saml_idps_certificates_by_fingerprint_and_expiry(aws: None) -> None:
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    tenants("acme")
    pem, fingerprint = _certificate()
    IdentityProviderStore().create(IdentityProvider(
        "acme", "https://saml.example/idp", idp_id="s1", protocol="saml", sign_in=True,
        saml={"sso_url": "https://saml.example/sso", "certificates": [pem]}))
    assert main_text(get_idp(get("idp", [("tenant", "acme"), ("idp_id", "s1")]), signed("auditor"))) == (
        "s1 (acme) Identity provider Protocol SAML 2.0 Entity ID https://saml.example/idp ID s1 Label - Domains - "
        "Offered for sign-in yes Sign-on service https://saml.example/sso Logout service - NameID format - "
        f"Metadata URL given as a document Certificate 1 SHA-256 {fingerprint}, expires 2026-06-15 15:06:40 UTC "
        "Keys discovery User match sub Create users no Trust email no Trust MFA no Step-up local Claim mapping the "
        "defaults Created never Register at the identity provider SP entity ID (audience) http://127.0.0.1:3000/saml/acme "
        "Assertion Consumer Service (HTTP-POST) http://127.0.0.1:3000/saml/acme/acs Single Logout Service "
        "(HTTP-Redirect) http://127.0.0.1:3000/saml/acme/slo SP metadata http://127.0.0.1:3000/saml/acme/metadata")
    assert certificate(pem) == f"SHA-256 {fingerprint}, expires 2026-06-15 15:06:40 UTC"


@pytest.mark.parametrize(("query", "operator", "code", "detail"), [
    ([("tenant", "acme")], "owner", "invalid_request",
     "Name the identity provider with tenant and idp_id (or issuer)."),
    ([("idp_id", "corp")], "owner", "invalid_request",
     "Name the identity provider with tenant and idp_id (or issuer)."),
    ([("tenant", "acme"), ("idp_id", "nope")], "owner", "not_found",
     "Tenant 'acme' trusts no identity provider 'nope'."),
    ([("tenant", "acme"), ("idp_id", "nope"), ("issuer", "https://op.example")], "owner", "not_found",
     "Tenant 'acme' trusts no identity provider 'nope'."),  # an id, when given, names it
    ([("tenant", "globex"), ("issuer", "https://op.example")], "owner", "not_found",
     "Tenant 'globex' trusts no identity provider 'https://op.example'."),
    ([("tenant", "acme"), ("idp_id", "nope")], "support", "operator_forbidden",
     "Your roles (support (acme)) do not allow this in tenant acme."),
], ids=["no-idp", "no-tenant", "unknown", "id-first", "other-tenant", "support"])
def test_an_idp_not_named_not_there_or_not_allowed(acme: None, query: list[tuple[str, str]], operator: str,
                                                  code: str, detail: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_idp(get("idp", query), signed(operator, "acme") if operator == "support" else signed(operator))
    assert (refused.value.code, refused.value.detail) == (code, detail)
