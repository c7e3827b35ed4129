"""--metadata-url / --metadata-file: a SAML IdP's metadata into the record's `saml` map, or exit 2's sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from authgate_cli.admin.arguments import InvalidInput
from authgate_cli.admin.saml_metadata import saml_metadata
from tests.document_server import DocumentServer, Route, trust_documents
from tests.saml_support import IDP_ENTITY_ID, SSO_URL, metadata, signing_key

SAML = {"entity_id": IDP_ENTITY_ID, "sso_url": SSO_URL, "slo_url": "", "certificates": [signing_key().cert_pem],
        "name_id_format": "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"}


def refused(url: str | None, file: str | None) -> str:
    with pytest.raises(InvalidInput) as caught:
        saml_metadata(url, file)
    return str(caught.value)


def test_a_metadata_file_gives_the_saml_map(tmp_path: Path) -> None:
    (tmp_path / "idp.xml").write_bytes(metadata())
    assert saml_metadata(None, str(tmp_path / "idp.xml")) == SAML


def test_a_metadata_url_gives_the_saml_map_and_keeps_the_url(document_host: DocumentServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    server = trust_documents(document_host, monkeypatch)
    server.routes["/idp.xml"] = Route(metadata(), headers={"Content-Type": "application/samlmetadata+xml"})
    url = server.url("/idp.xml")
    assert saml_metadata(url, None) == {**SAML, "metadata_url": url}
    assert server.requests == [("/idp.xml", f"127.0.0.1:{server.port}")]


def test_neither_flag_gives_nothing_and_both_are_refused() -> None:
    assert saml_metadata(None, None) is None
    assert refused("https://idp.example/md", "idp.xml") == "give --metadata-url or --metadata-file, not both"


def test_metadata_authgate_cannot_use_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "idp.xml").write_bytes(metadata(keys=()))
    assert refused(None, str(tmp_path / "idp.xml")) == (
        f"--metadata-file {str(tmp_path / 'idp.xml')!r}: the IDPSSODescriptor has no signing certificate "
        '(KeyDescriptor use="signing" with an X509Certificate): authgate verifies every assertion with it')


def test_a_file_that_cannot_be_read_or_is_too_large_is_refused(tmp_path: Path) -> None:
    assert refused(None, str(tmp_path / "missing.xml")) == (
        f"--metadata-file {str(tmp_path / 'missing.xml')!r} cannot be read (No such file or directory)")
    (tmp_path / "big.xml").write_bytes(b"<x>" + b"p" * 300_000 + b"</x>")
    assert refused(None, str(tmp_path / "big.xml")) == (
        f"--metadata-file {str(tmp_path / 'big.xml')!r} is larger than 262144 bytes")


def test_a_url_on_a_private_address_is_refused_without_a_request(document_host: DocumentServer) -> None:
    before = len(document_host.requests)
    assert refused("https://10.0.0.7/idp.xml", None) == (
        "--metadata-url 'https://10.0.0.7/idp.xml': the metadata at https://10.0.0.7/idp.xml could not be fetched: "
        "10.0.0.7 -> 10.0.0.7 (private)")
    assert len(document_host.requests) == before
