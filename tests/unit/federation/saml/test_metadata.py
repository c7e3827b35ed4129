"""metadata.parse: an IdP's EntityDescriptor into the record's `saml` map, or a sentence for the administrator;
metadata_url.fetch: the document GET under authgate.outbound's rules."""

from __future__ import annotations

import pytest

from authgate.federation.saml.metadata import MetadataInvalid, of, parse
from authgate.federation.saml.metadata_url import fetch
from authgate.federation.saml.vocabulary import (
    EMAIL_ADDRESS,
    HTTP_POST,
    HTTP_REDIRECT,
    PERSISTENT,
    TRANSIENT,
)
from tests.document_server import DocumentServer, Route, loopback
from tests.saml_support import IDP_ENTITY_ID, SSO_URL, metadata, signing_key

IDP = signing_key()


def invalid(xml: bytes, **kwargs: object) -> str:
    with pytest.raises(MetadataInvalid) as caught:
        parse(xml, **kwargs)  # type: ignore[arg-type]
    return str(caught.value)


def test_an_idps_metadata_gives_the_records_saml_map() -> None:
    xml = metadata(formats=(TRANSIENT, PERSISTENT), slo="https://idp.democorp.example/slo")
    assert parse(xml) == {"entity_id": IDP_ENTITY_ID, "sso_url": SSO_URL, "slo_url": "https://idp.democorp.example/slo",
                          "certificates": [IDP.cert_pem], "name_id_format": PERSISTENT}


def test_a_key_descriptor_without_use_signs_and_an_encryption_key_is_left_out() -> None:
    other = signing_key("idp-encryption")
    xml = metadata(keys=((other, "encryption"), (IDP, None)))
    assert parse(xml)["certificates"] == [IDP.cert_pem]


def test_every_signing_certificate_is_kept_for_a_key_rollover() -> None:
    new = signing_key("idp-2026")
    assert parse(metadata(keys=((IDP, "signing"), (new, "signing"))))["certificates"] == [IDP.cert_pem, new.cert_pem]


def test_without_persistent_the_first_lasting_format_is_asked_for() -> None:
    assert parse(metadata(formats=(TRANSIENT, EMAIL_ADDRESS)))["name_id_format"] == EMAIL_ADDRESS


def test_without_any_format_none_is_asked_for() -> None:
    assert parse(metadata(formats=()))["name_id_format"] == ""


def test_metadata_without_a_signing_certificate_is_refused() -> None:
    assert invalid(metadata(keys=((IDP, "encryption"),))) == (
        'the IDPSSODescriptor has no signing certificate (KeyDescriptor use="signing" with an X509Certificate): '
        "authgate verifies every assertion with it")


def test_an_idp_offering_only_transient_name_ids_is_refused() -> None:
    assert invalid(metadata(formats=(TRANSIENT,))) == (
        "the identity provider offers only transient NameIDs, which name a person for one sign-in: release a "
        "persistent NameID to authgate")


def test_an_idp_without_a_redirect_sign_on_service_is_refused() -> None:
    assert invalid(metadata(sso=((HTTP_POST, SSO_URL),))) == (
        "the IDPSSODescriptor has no SingleSignOnService for the HTTP-Redirect binding")


def test_a_plain_http_sign_on_service_is_refused_unless_on_loopback_locally() -> None:
    assert invalid(metadata(sso=((HTTP_REDIRECT, "http://idp.example/sso"),))) == (
        "the SingleSignOnService location 'http://idp.example/sso' is refused: not an https URL")
    loopback = metadata(sso=((HTTP_REDIRECT, "http://127.0.0.1:8080/sso"),))
    assert "not an https URL" in invalid(loopback)
    assert parse(loopback, allow_loopback=True)["sso_url"] == "http://127.0.0.1:8080/sso"


def test_an_idp_that_wants_signed_authn_requests_is_taken_and_said_to_want_them() -> None:
    xml = metadata().replace(b"<md:IDPSSODescriptor ", b'<md:IDPSSODescriptor WantAuthnRequestsSigned="true" ')
    read = parse(xml)
    assert (read["want_requests_signed"], of(read).want_requests_signed, of(parse(metadata())).want_requests_signed,
            "want_requests_signed" in parse(metadata())) == (True, True, False, False)


def test_expired_metadata_is_refused() -> None:
    assert invalid(metadata(validUntil="2020-01-01T00:00:00Z"), now=1_750_000_000) == (
        "the metadata expired (validUntil 2020-01-01T00:00:00Z)")


def test_an_rsa_key_under_2048_bits_is_refused() -> None:
    assert invalid(metadata(keys=((signing_key("weak", 1024), "signing"),))) == (
        "a signing certificate holds an RSA key of 1024 bits (at least 2048)")


def test_an_aggregate_of_entities_is_refused() -> None:
    xml = b'<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"/>'
    assert invalid(xml) == ("this is an aggregate of entities (EntitiesDescriptor): give the identity provider's "
                            "own EntityDescriptor")


def test_a_document_with_a_doctype_is_refused() -> None:
    assert invalid(b'<!DOCTYPE x SYSTEM "http://127.0.0.1:9/x"><x/>') == (
        "the metadata is not XML authgate reads: a document type declaration (DOCTYPE or ENTITY) is never accepted")


def test_a_record_without_saml_metadata_cannot_be_read() -> None:
    with pytest.raises(MetadataInvalid):
        of(None)
    assert of(parse(metadata())).sso_url == SSO_URL


# -- fetch ----------------------------------------------------------------------------------------------------------

def fetched(document_host: DocumentServer, path: str, **kwargs: object) -> bytes:
    return fetch(document_host.url(path, host="tools.example"), resolver=kwargs.pop("resolver", loopback),  # type: ignore[arg-type]
                 allow_loopback=True, context=document_host.client_context(), **kwargs)  # type: ignore[arg-type]


def test_metadata_is_fetched_and_parsed(document_host: DocumentServer) -> None:
    document_host.routes["/md"] = Route(metadata(), headers={"Content-Type": "application/samlmetadata+xml"})
    assert parse(fetched(document_host, "/md"))["entity_id"] == IDP_ENTITY_ID


def test_metadata_larger_than_the_wire_bound_of_other_documents_is_fetched(document_host: DocumentServer) -> None:
    padded = metadata().replace(b"</md:EntityDescriptor>", b"<!--" + b"p" * 100_000 + b"--></md:EntityDescriptor>")
    document_host.routes["/big"] = Route(padded, headers={"Content-Type": "application/xml"})
    assert fetched(document_host, "/big") == padded


def test_metadata_over_the_bound_is_refused(document_host: DocumentServer) -> None:
    document_host.routes["/huge"] = Route(b"<x>" + b"p" * 300_000 + b"</x>", headers={"Content-Type": "application/xml"})
    with pytest.raises(MetadataInvalid) as caught:
        fetched(document_host, "/huge")
    assert str(caught.value) == (f"the metadata at {document_host.url('/huge', host='tools.example')} could not be fetched: "
                                 "its body is larger than 262144 bytes")


def test_a_document_that_is_not_xml_is_refused(document_host: DocumentServer) -> None:
    document_host.routes["/json"] = Route(b"{}")
    with pytest.raises(MetadataInvalid) as caught:
        fetched(document_host, "/json")
    assert str(caught.value).endswith("is served as application/json, not XML")


def test_a_private_address_is_never_fetched(document_host: DocumentServer) -> None:
    before = len(document_host.requests)
    with pytest.raises(MetadataInvalid) as caught:
        fetch("https://idp.example/md", resolver=lambda h, p: ["10.0.0.7"], context=document_host.client_context())
    assert str(caught.value) == ("the metadata at https://idp.example/md could not be fetched: "
                                 "idp.example -> 10.0.0.7 (private)")
    assert len(document_host.requests) == before
