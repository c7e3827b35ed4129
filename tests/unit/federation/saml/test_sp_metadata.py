"""sp_metadata(): the tenant's service provider as an IdP administrator imports it."""

from __future__ import annotations

import pytest

from authgate.federation.saml.metadata import MetadataInvalid, parse
from authgate.federation.saml.sp_metadata import acs_url, sp_entity_id, sp_metadata
from tests.saml_support import key_descriptors, signing_key


def test_the_sp_entity_id_and_acs_url_hang_off_the_issuer_per_tenant() -> None:
    assert sp_entity_id("https://auth.example.com/", "acme") == "https://auth.example.com/saml/acme"
    assert acs_url("https://auth.example.com", "acme") == "https://auth.example.com/saml/acme/acs"
    assert sp_entity_id("https://auth.example.com", "a/b?c") == "https://auth.example.com/saml/a%2Fb%3Fc"


def test_the_metadata_says_unsigned_requests_signed_assertions_and_the_post_acs() -> None:
    xml = sp_metadata("https://auth.example.com/saml/acme", "https://auth.example.com/saml/acme/acs",
                      "https://auth.example.com/saml/acme/slo")
    assert xml.decode() == """<?xml version='1.0' encoding='utf-8'?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://auth.example.com/saml/acme">
  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://auth.example.com/saml/acme/slo"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://auth.example.com/saml/acme/acs" index="0" isDefault="true"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>
"""


def test_without_a_logout_url_no_logout_service_is_listed() -> None:
    assert b"SingleLogoutService" not in sp_metadata("https://a.example/saml/t", "https://a.example/saml/t/acs")


def test_the_metadata_reads_back_as_metadata_but_not_as_an_idps() -> None:
    with pytest.raises(MetadataInvalid) as caught:
        parse(sp_metadata("https://a.example/saml/t", "https://a.example/saml/t/acs"))
    assert str(caught.value) == "the EntityDescriptor has no IDPSSODescriptor supporting SAML 2.0"


def test_with_the_stacks_signing_certificates_it_publishes_them_and_promises_signed_requests() -> None:
    first, second = signing_key("sp"), signing_key("sp-next")
    xml = sp_metadata("https://a.example/saml/t", "https://a.example/saml/t/acs", "https://a.example/saml/t/slo",
                      (first.cert_pem, second.cert_pem)).decode()
    unsigned = sp_metadata("https://a.example/saml/t", "https://a.example/saml/t/acs",
                           "https://a.example/saml/t/slo").decode()
    assert xml == unsigned.replace('AuthnRequestsSigned="false"', 'AuthnRequestsSigned="true"').replace(
        "\n    <md:SingleLogoutService", key_descriptors(first, second) + "\n    <md:SingleLogoutService")
    assert key_descriptors(first) == f"""
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data>
          <ds:X509Certificate>{first.cert_b64}</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>"""
