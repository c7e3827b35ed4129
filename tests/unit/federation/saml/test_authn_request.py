"""start(): the AuthnRequest (Core 3.4.1) by HTTP-Redirect (Bindings 3.4.4.1), read back as the IdP reads it."""

from __future__ import annotations

import base64
import re
import zlib
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml import start
from authgate.federation.saml.authn_request import new_id
from authgate.federation.saml.redirect_signature import RSA_SHA256, verify
from tests.saml_support import (
    ACS_URL,
    SP_ENTITY_ID,
    SSO_URL,
    START,
    record,
    signing_key,
    store_sp_keys,
)

MFA = "http://schemas.microsoft.com/claims/multipleauthn"
# The stack's SAML signing key is read from KeysTable (moto's).
pytestmark = pytest.mark.usefixtures("aws")


def sent(url: str) -> tuple[str, dict[str, list[str]], str]:
    """(the endpoint, the query, the inflated AuthnRequest XML) of a redirect URL."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    xml = zlib.decompress(base64.b64decode(query["SAMLRequest"][0]), -15).decode("utf-8")
    return f"{parts.scheme}://{parts.netloc}{parts.path}", query, xml


def test_the_request_asks_for_a_post_to_the_acs_with_a_persistent_name_id() -> None:
    url, request_id = start(record(), acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="st-1", now=START)
    endpoint, query, xml = sent(url)
    assert (endpoint, sorted(query), query["RelayState"]) == (SSO_URL, ["RelayState", "SAMLRequest"], ["st-1"])
    assert xml == (
        '<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" '
        'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '
        f'ID="{request_id}" Version="2.0" IssueInstant="2025-06-15T15:06:40Z" Destination="{SSO_URL}" '
        f'AssertionConsumerServiceURL="{ACS_URL}" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST">'
        f"<saml:Issuer>{SP_ENTITY_ID}</saml:Issuer>"
        '<samlp:NameIDPolicy AllowCreate="true" Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"/>'
        "</samlp:AuthnRequest>")


def test_force_authn_and_a_requested_context_for_a_step_up() -> None:
    url, _ = start(record(), acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="", force_authn=True,
                   requested_authn_context=(MFA,), comparison="minimum", now=START)
    _, query, xml = sent(url)
    assert "RelayState" not in query
    assert ' ForceAuthn="true">' in xml
    assert xml.endswith(f'<samlp:RequestedAuthnContext Comparison="minimum"><saml:AuthnContextClassRef>{MFA}'
                        "</saml:AuthnContextClassRef></samlp:RequestedAuthnContext></samlp:AuthnRequest>")


def test_an_sso_url_with_a_query_keeps_it() -> None:
    idp = record()
    idp.saml["sso_url"] = f"{SSO_URL}?tenant=democorp"
    url, _ = start(idp, acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="s")
    assert url.startswith(f"{SSO_URL}?tenant=democorp&SAMLRequest=")


def test_each_request_has_a_fresh_unguessable_ncname_id() -> None:
    ids = {new_id() for _ in range(100)}
    assert len(ids) == 100 and all(re.fullmatch(r"_[0-9a-f]{32}", i) for i in ids)


def test_relay_state_over_80_bytes_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="RelayState is 81 bytes, more than 80"):
        start(record(), acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="r" * 81)


def test_with_the_stacks_signing_key_the_request_is_signed_by_the_binding() -> None:
    store_sp_keys(signing_key("sp"))
    url, request_id = start(record(), acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="st-1", now=START)
    endpoint, query, xml = sent(url)
    raw = urlsplit(url).query
    signed, _, signature = raw.partition("&Signature=")
    assert [pair.split("=", 1)[0] for pair in raw.split("&")] == ["SAMLRequest", "RelayState", "SigAlg", "Signature"]
    assert (endpoint, query["RelayState"], query["SigAlg"]) == (SSO_URL, ["st-1"], [RSA_SHA256])
    assert signed.endswith("&RelayState=st-1&SigAlg=http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256")
    assert f'ID="{request_id}"' in xml and f'Destination="{SSO_URL}"' in xml  # Bindings 3.4.5.2: signed, so named
    # As the IdP checks it: over the octets it received, with the certificate the SP metadata gave it.
    signing_key("sp").key.public_key().verify(  # type: ignore[call-arg]
        base64.b64decode(query["Signature"][0]), signed.encode(), padding.PKCS1v15(), hashes.SHA256())
    verify({name: values[0] for name, values in query.items()}, "SAMLRequest", (signing_key("sp").cert_pem,))
    assert base64.b64decode(unquote(signature)) == base64.b64decode(query["Signature"][0])


def test_an_idp_that_wants_signed_requests_gets_none_unsigned() -> None:
    idp = record()
    idp.saml["want_requests_signed"] = True
    with pytest.raises(UpstreamRefused) as caught:
        start(idp, acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="st-1", now=START)
    assert (caught.value.reason, caught.value.internal) == (
        "requests_unsigned",
        "the identity provider wants signed requests (WantAuthnRequestsSigned) and the stack has no SAML signing key")
    store_sp_keys(signing_key("sp"))
    url, _ = start(idp, acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="st-1", now=START)
    assert sorted(sent(url)[1]) == ["RelayState", "SAMLRequest", "SigAlg", "Signature"]


def test_without_a_key_an_idp_that_does_not_ask_gets_the_request_unsigned() -> None:
    url, _ = start(record(), acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="", now=START)
    assert sorted(sent(url)[1]) == ["SAMLRequest"]


def test_a_key_sealed_under_a_replaced_sealing_key_refuses_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    store_sp_keys(signing_key("sp"))
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "another-session-secret-0123456789abcdef")
    caches.reset()
    with pytest.raises(UpstreamRefused) as caught:
        start(record(), acs_url=ACS_URL, sp_entity_id=SP_ENTITY_ID, relay_state="st-1", now=START)
    assert (caught.value.reason, caught.value.internal) == (
        "sp_key_unreadable",
        "the stack's SAML signing key does not open under the sealing key: add a new one (authgate saml-keys)")
