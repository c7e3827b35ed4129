"""logout_url(): the LogoutRequest (Core 3.7.1) by HTTP-Redirect, read back as the IdP reads it."""

from __future__ import annotations

import base64
import zlib
from urllib.parse import parse_qs, urlsplit

import pytest

from authgate.federation.saml import logout_url
from authgate.federation.saml.redirect_signature import RSA_SHA256, verify
from tests.saml_support import SP_ENTITY_ID, START, record, signing_key, store_sp_keys

SLO_URL = "https://idp.democorp.example/slo"
# The stack's SAML signing key is read from KeysTable (moto's).
pytestmark = pytest.mark.usefixtures("aws")


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


def test_with_the_stacks_signing_key_the_logout_request_is_signed_by_the_binding() -> None:
    """Profiles 4.4.3.1: a LogoutRequest sent by HTTP-Redirect is signed."""
    store_sp_keys(signing_key("sp"))
    url, request_id = logout_url(with_slo(), sp_entity_id=SP_ENTITY_ID, relay_state="bye",  # type: ignore[misc]
                                 session_index="_session-1", subject="urn:oasis:names:tc:SAML:2.0:nameid-format:"
                                                                    "persistent|dana-7f3a", now=START)
    raw = urlsplit(url).query
    query = {name: values[0] for name, values in parse_qs(raw).items()}
    assert [pair.split("=", 1)[0] for pair in raw.split("&")] == ["SAMLRequest", "RelayState", "SigAlg", "Signature"]
    assert (query["RelayState"], query["SigAlg"]) == ("bye", RSA_SHA256)
    verify(query, "SAMLRequest", (signing_key("sp").cert_pem,))
    assert f'ID="{request_id}"' in zlib.decompress(base64.b64decode(query["SAMLRequest"]), -15).decode()
