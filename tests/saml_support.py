"""A test SAML identity provider: its key and self-signed certificate, its metadata, and the Responses it signs.

Built with lxml and signxml's XMLSigner (an enveloped signature after the Issuer, exclusive c14n,
RSA-SHA256, as SimpleSAMLphp, Entra ID and Okta sign), so a test can sign an honest response,
or change one after signing and sign it again with another key: the forged messages of the
attack tests. Times default to the `clock` fixture's START.
"""

from __future__ import annotations

import base64
import datetime
from functools import cache
from typing import Any, NamedTuple

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml.algorithms import DigestAlgorithm, SignatureConstructionMethod, SignatureMethod
from signxml.signer import XMLSigner

from authgate.federation.saml.instants import write as instant
from authgate.federation.saml.vocabulary import (
    ASSERTION,
    BEARER,
    DSIG,
    HTTP_REDIRECT,
    METADATA,
    PERSISTENT,
    PROTOCOL,
    SUCCESS,
    saml,
    samlp,
)
from authgate.identity_providers.model import IdentityProvider
from tests.conftest import START
from tests.demo import ISSUER

TENANT = "acme"
SP_ENTITY_ID = f"{ISSUER}/saml/{TENANT}"
ACS_URL = f"{SP_ENTITY_ID}/acs"
REQUEST_ID = "_request0123456789abcdef0123456789"
IDP_ENTITY_ID = "https://idp.democorp.example/saml"
SSO_URL = "https://idp.democorp.example/sso"


class SigningKey(NamedTuple):
    """An RSA or EC key and its self-signed certificate (PEM)."""

    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
    cert_pem: str

    @property
    def cert_b64(self) -> str:
        """The certificate as metadata's X509Certificate holds it (base64 DER)."""
        return "".join(line for line in self.cert_pem.splitlines() if "-----" not in line)


@cache
def signing_key(name: str = "idp", bits: int = 2048, *, curve: bool = False, expired: bool = False) -> SigningKey:
    """An RSA key of `bits` (or a P-256 key: `curve`) and a self-signed certificate for `name` valid from 2020
    for 30 years (or for one: `expired`), once per run."""
    key = ec.generate_private_key(ec.SECP256R1()) if curve else rsa.generate_private_key(public_exponent=65537,
                                                                                          key_size=bits)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    start = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + datetime.timedelta(days=365 if expired else 3650 * 3)).sign(key, hashes.SHA256()))
    return SigningKey(key, cert.public_bytes(serialization.Encoding.PEM).decode("ascii"))


def record(*keys: SigningKey, entity_id: str = IDP_ENTITY_ID, **claims: str) -> IdentityProvider:
    """The tenant's record of the test IdP, trusting `keys` (default: the "idp" key); `claims` map fields to
    attribute names."""
    certs = [k.cert_pem for k in (keys or (signing_key(),))]
    return saml_record(TENANT, {"entity_id": entity_id, "sso_url": SSO_URL, "slo_url": "", "certificates": certs,
                                "name_id_format": PERSISTENT}, **claims)


def saml_record(tenant_id: str, saml: dict[str, Any], **claims: str) -> IdentityProvider:
    """A tenant's record of a SAML IdP, as `authgate idps create --protocol saml` writes it."""
    return IdentityProvider(tenant_id=tenant_id, issuer=saml["entity_id"], idp_id="democorp", protocol="saml",
                            label="Demo Corp SSO", sign_in=True, saml=saml, claims=tuple(sorted(claims.items())))


def metadata(*, entity_id: str = IDP_ENTITY_ID, keys: tuple[tuple[SigningKey, str | None], ...] | None = None,
             sso: tuple[tuple[str, str], ...] = ((HTTP_REDIRECT, SSO_URL),), formats: tuple[str, ...] = (PERSISTENT,),
             slo: str | None = None, **entity: str) -> bytes:
    """An IdP's EntityDescriptor: `keys` as (key, use) pairs (use None: no `use`), its sign-on endpoints, formats."""
    md = f"{{{METADATA}}}"
    root = etree.Element(f"{md}EntityDescriptor", nsmap={"md": METADATA, "ds": DSIG}, entityID=entity_id, **entity)
    idp = etree.SubElement(root, f"{md}IDPSSODescriptor", protocolSupportEnumeration=PROTOCOL)
    for key, use in keys if keys is not None else ((signing_key(), "signing"),):
        descriptor = etree.SubElement(idp, f"{md}KeyDescriptor", **({"use": use} if use else {}))
        info = etree.SubElement(descriptor, f"{{{DSIG}}}KeyInfo")
        etree.SubElement(etree.SubElement(info, f"{{{DSIG}}}X509Data"), f"{{{DSIG}}}X509Certificate").text = (
            key.cert_b64)
    if slo:
        etree.SubElement(idp, f"{md}SingleLogoutService", Binding=HTTP_REDIRECT, Location=slo)
    for name_format in formats:
        etree.SubElement(idp, f"{md}NameIDFormat").text = name_format
    for binding, location in sso:
        etree.SubElement(idp, f"{md}SingleSignOnService", Binding=binding, Location=location)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8"))


def assertion(*, assertion_id: str = "_assertion0001", issuer: str = IDP_ENTITY_ID, name_id: str = "dana-7f3a",
              name_format: str | None = PERSISTENT, recipient: str = ACS_URL, in_response_to: str = REQUEST_ID,
              audience: str = SP_ENTITY_ID, now: int = START, not_before: int | None = None,
              not_on_or_after: int | None = None, confirmation_until: int | None = None,
              attributes: dict[str, list[str]] | None = None, class_ref: str | None = None,
              session_index: str = "_session-1") -> etree._Element:
    """An honest Assertion for authgate's SP (unsigned): bearer confirmation, conditions, authn and attributes."""
    a = etree.Element(saml("Assertion"), nsmap={"saml": ASSERTION}, ID=assertion_id, Version="2.0",
                      IssueInstant=instant(now))
    etree.SubElement(a, saml("Issuer")).text = issuer
    subject = etree.SubElement(a, saml("Subject"))
    name = etree.SubElement(subject, saml("NameID"), **({"Format": name_format} if name_format else {}))
    name.text = name_id
    confirmation = etree.SubElement(subject, saml("SubjectConfirmation"), Method=BEARER)
    etree.SubElement(confirmation, saml("SubjectConfirmationData"), Recipient=recipient, InResponseTo=in_response_to,
                     NotOnOrAfter=instant(confirmation_until if confirmation_until is not None else now + 300))
    conditions = etree.SubElement(a, saml("Conditions"), NotBefore=instant(not_before if not_before is not None
                                                                           else now - 30),
                                  NotOnOrAfter=instant(not_on_or_after if not_on_or_after is not None else now + 300))
    etree.SubElement(etree.SubElement(conditions, saml("AudienceRestriction")), saml("Audience")).text = audience
    authn = etree.SubElement(a, saml("AuthnStatement"), AuthnInstant=instant(now - 5), SessionIndex=session_index)
    etree.SubElement(etree.SubElement(authn, saml("AuthnContext")), saml("AuthnContextClassRef")).text = (
        class_ref or "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport")
    statement = etree.SubElement(a, saml("AttributeStatement"))
    for attr_name, values in (attributes if attributes is not None else {
            "mail": ["dana@democorp.example"], "displayName": ["Dana Demo"], "memberOf": ["staff", "finance"]}).items():
        attribute = etree.SubElement(statement, saml("Attribute"), Name=attr_name)
        for value in values:
            etree.SubElement(attribute, saml("AttributeValue")).text = value
    return a


def response(*assertions: etree._Element, response_id: str = "_response0001", issuer: str | None = IDP_ENTITY_ID,
             destination: str | None = ACS_URL, in_response_to: str | None = REQUEST_ID, status: str = SUCCESS,
             now: int = START) -> etree._Element:
    """A Response (unsigned) carrying `assertions` as its children after the Status."""
    r = etree.Element(samlp("Response"), nsmap={"samlp": PROTOCOL, "saml": ASSERTION}, ID=response_id, Version="2.0",
                      IssueInstant=instant(now))
    for name, value in (("Destination", destination), ("InResponseTo", in_response_to)):
        if value is not None:
            r.set(name, value)
    if issuer is not None:
        etree.SubElement(r, saml("Issuer")).text = issuer
    etree.SubElement(etree.SubElement(r, samlp("Status")), samlp("StatusCode"), Value=status)
    r.extend(assertions)
    return r


class _AnySigner(XMLSigner):
    """signxml's signer, SHA-1 allowed: what an old IdP still sends, for the tests that refuse it."""

    def check_deprecated_methods(self) -> None:
        pass


def sign(element: etree._Element, key: SigningKey | None = None, *,
         method: SignatureMethod = SignatureMethod.RSA_SHA256,
         digest: DigestAlgorithm = DigestAlgorithm.SHA256) -> etree._Element:
    """`element` with an enveloped signature by `key` (default the "idp" key) placed after its Issuer."""
    key = key or signing_key()
    issuer = element.find(saml("Issuer"))
    placeholder = etree.Element(f"{{{DSIG}}}Signature", nsmap={"ds": DSIG}, Id="placeholder")
    if issuer is not None:
        issuer.addnext(placeholder)
    else:
        element.insert(0, placeholder)
    signer = _AnySigner(method=SignatureConstructionMethod.enveloped, signature_algorithm=method,
                        digest_algorithm=digest, c14n_algorithm="http://www.w3.org/2001/10/xml-exc-c14n#")
    signed: etree._Element = signer.sign(element, key=key.key, cert=key.cert_pem, reference_uri=element.get("ID"),
                                         id_attribute="ID")
    return signed


def encoded(element: etree._Element | bytes) -> str:
    """The SAMLResponse form field of `element` (base64 of its UTF-8 serialization)."""
    raw = element if isinstance(element, bytes) else etree.tostring(element, encoding="utf-8")
    return base64.b64encode(raw).decode("ascii")


def signed_response(**assertion_fields: Any) -> str:
    """The SAMLResponse of an honest sign-in: a signed assertion in an unsigned Response."""
    return encoded(response(sign(assertion(**assertion_fields))))


SLO_URL = f"{SP_ENTITY_ID}/slo"
IDP_SLO_URL = "https://idp.democorp.example/slo"
RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"


def logout_response(*, in_response_to: str | None = REQUEST_ID, destination: str | None = SLO_URL,
                    issuer: str | None = IDP_ENTITY_ID, status: str = SUCCESS, now: int = START) -> etree._Element:
    """The IdP's LogoutResponse (Core 3.7.2; unsigned) to authgate's LogoutRequest `in_response_to`."""
    r = etree.Element(samlp("LogoutResponse"), nsmap={"samlp": PROTOCOL, "saml": ASSERTION}, ID="_logout-answer-1",
                      Version="2.0", IssueInstant=instant(now))
    for name, value in (("Destination", destination), ("InResponseTo", in_response_to)):
        if value is not None:
            r.set(name, value)
    if issuer is not None:
        etree.SubElement(r, saml("Issuer")).text = issuer
    etree.SubElement(etree.SubElement(r, samlp("Status")), samlp("StatusCode"), Value=status)
    return r


def redirect_query(element: etree._Element, relay_state: str | None = None, key: SigningKey | None = None, *,
                   sig_alg: str = RSA_SHA256, lower_hex: bool = False) -> list[tuple[str, str]]:
    """The HTTP-Redirect binding's query of a message (Bindings 3.4.4.1): DEFLATEd, base64, and signed over its
    URL-encoded octets when `key` is given (as SimpleSAMLphp encodes them, or with lower-case hex as AD FS does)."""
    import re
    import zlib
    from urllib.parse import quote_plus

    from cryptography.hazmat.primitives.asymmetric import padding

    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    name = "SAMLResponse" if element.tag.endswith("Response") else "SAMLRequest"
    params = [(name, base64.b64encode(compressor.compress(etree.tostring(element)) + compressor.flush()).decode())]
    if relay_state is not None:
        params.append(("RelayState", relay_state))
    if key is None:
        return params
    params.append(("SigAlg", sig_alg))
    octets = "&".join(f"{k}={quote_plus(v, safe='')}" for k, v in params)
    if lower_hex:
        octets = re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), octets)
    assert isinstance(key.key, rsa.RSAPrivateKey)
    signature = key.key.sign(octets.encode(), padding.PKCS1v15(), hashes.SHA256())
    return [*params, ("Signature", base64.b64encode(signature).decode())]


def store_sp_keys(*keys: SigningKey) -> None:
    """The stack's SAML signing keys, as `authgate saml-keys add` stores them (the first signs); caches forgotten."""
    from authgate import caches
    from authgate.federation.saml import sp_keys
    from authgate.stores.saml_sp_keys import SamlSpKeyStore, StoredKey

    store = SamlSpKeyStore()
    pems = [(k.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()).decode("ascii"), k.cert_pem) for k in keys]
    store.write(tuple(StoredKey(cert, sp_keys.seal(pem, cert), START) for pem, cert in pems), store.read())
    caches.reset()


def key_descriptors(*keys: SigningKey) -> str:
    """The <KeyDescriptor use="signing"> of each key as authgate's SP metadata prints them (pretty, indented)."""
    return "".join(f"""
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data>
          <ds:X509Certificate>{key.cert_b64}</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>""" for key in keys)
