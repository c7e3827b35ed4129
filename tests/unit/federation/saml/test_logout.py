"""logout_url(): the LogoutRequest (Core 3.7.1) by HTTP-Redirect, read back as the IdP reads it."""

from __future__ import annotations

import base64
import zlib
from urllib.parse import parse_qs, urlsplit

from authgate.federation.saml import logout_url
from tests.saml_support import SP_ENTITY_ID, START, record

SLO_URL = "https://idp.democorp.example/slo"


def with_slo():  # type: ignore[no-untyped-def]
    idp = record()
    idp.saml["slo_url"] = SLO_URL
    return idp


def test_the_request_names_the_person_as_the_assertion_did_and_the_idps_session() -> None:
    got = logout_url(with_slo(), sp_entity_id=SP_ENTITY_ID, relay_state="bye", session_index="_session-1",
                     subject="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent|dana-7f3a", now=START)
    assert got is not None
    url, request_id = got
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    assert (f"{parts.scheme}://{parts.netloc}{parts.path}", query["RelayState"]) == (SLO_URL, ["bye"])
    assert zlib.decompress(base64.b64decode(query["SAMLRequest"][0]), -15).decode() == (
        '<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" '
        'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '
        f'ID="{request_id}" Version="2.0" IssueInstant="2025-06-15T15:06:40Z" Destination="{SLO_URL}">'
        f"<saml:Issuer>{SP_ENTITY_ID}</saml:Issuer>"
        '<saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">dana-7f3a</saml:NameID>'
        "<samlp:SessionIndex>_session-1</samlp:SessionIndex></samlp:LogoutRequest>")


def test_an_unspecified_name_id_is_sent_without_format() -> None:
    url, _ = logout_url(with_slo(), sp_entity_id=SP_ENTITY_ID, relay_state="", session_index="",  # type: ignore[misc]
                        subject="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified|dana")
    xml = zlib.decompress(base64.b64decode(parse_qs(urlsplit(url).query)["SAMLRequest"][0]), -15).decode()
    assert "<saml:NameID>dana</saml:NameID></samlp:LogoutRequest>" in xml


def test_an_idp_without_single_logout_gets_no_request() -> None:
    assert logout_url(record(), sp_entity_id=SP_ENTITY_ID, subject="x|y", session_index="", relay_state="") is None
