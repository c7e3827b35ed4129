"""The AuthnRequest a sign-in starts with (SAML Core 3.4.1), sent by the HTTP-Redirect binding (Bindings 3.4).

The request asks the IdP to answer authgate's Assertion Consumer Service by HTTP-POST
(ProtocolBinding, AssertionConsumerServiceURL), names authgate's service provider (Issuer), the
NameID format the IdP's metadata offered (NameIDPolicy), whether the person must sign in again
(ForceAuthn: OpenID Connect's max_age and prompt=login) and the authentication context a step-up
needs (RequestedAuthnContext). Once the stack has a SAML signing key (sp_keys) every request is
signed by the binding's query signature (Bindings 3.4.4.1: redirect_signature.signed_query), as the
SP metadata's AuthnRequestsSigned="true" then promises; without one it goes unsigned (the binding
makes the signature optional, and the IdP answers only at the ACS URL its own configuration lists
for authgate, so a forged request gains nothing), and an IdP whose metadata wants signed requests
(WantAuthnRequestsSigned) is refused a request rather than sent one it will reject. Its ID is what
the Response's InResponseTo must echo (Profiles 4.1.4.2): the caller keeps it with the sign-in.
"""

from __future__ import annotations

import base64
import secrets
import zlib

from lxml import etree

from authgate import clock
from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml import instants, metadata, redirect_signature, sp_keys
from authgate.federation.saml.vocabulary import ASSERTION, HTTP_POST, PROTOCOL, VERSION, saml, samlp
from authgate.identity_providers.model import IdentityProvider

# Bindings 3.4.3: "RelayState data MUST NOT exceed 80 bytes in length".
MAX_RELAY_STATE = 80
COMPARISONS = ("exact", "minimum", "maximum", "better")


def new_id() -> str:
    """A request ID: an xs:ID (an NCName: it cannot start with a digit), 128 random bits (Core 1.3.4)."""
    return f"_{secrets.token_hex(16)}"


def start(idp: IdentityProvider, *, acs_url: str, sp_entity_id: str, relay_state: str, force_authn: bool = False,
          requested_authn_context: tuple[str, ...] = (), comparison: str = "exact",
          now: int | None = None) -> tuple[str, str]:
    """(the URL to send the browser to, the request's ID): an AuthnRequest to `idp` by HTTP-Redirect."""
    if len(relay_state.encode("utf-8")) > MAX_RELAY_STATE:
        raise ValueError(f"RelayState is {len(relay_state.encode('utf-8'))} bytes, more than {MAX_RELAY_STATE}")
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison must be one of {COMPARISONS}")
    settings = metadata.of(idp.saml)
    request_id = new_id()
    xml = authn_request(settings, request_id=request_id, acs_url=acs_url, sp_entity_id=sp_entity_id,
                        force_authn=force_authn, requested_authn_context=requested_authn_context,
                        comparison=comparison, now=clock.seconds() if now is None else now)
    return redirect_url(settings.sso_url, "SAMLRequest", xml, relay_state, signing_key(settings)), request_id


def signing_key(settings: metadata.IdpSaml) -> sp_keys.SpKey | None:
    """The stack's key a request to this IdP is signed with (None: unsigned); UpstreamRefused when the IdP wants
    signed requests and the stack has no key, or when the stored key does not open (the sealing key was replaced)."""
    from authgate.sealing import SecretUnreadable

    try:
        key = sp_keys.signer()
    except SecretUnreadable:
        raise UpstreamRefused("sp_key_unreadable", "the stack's SAML signing key does not open under the sealing "
                                                   "key: add a new one (authgate saml-keys)") from None
    if key is None and settings.want_requests_signed:
        raise UpstreamRefused("requests_unsigned", "the identity provider wants signed requests "
                                                   "(WantAuthnRequestsSigned) and the stack has no SAML signing key")
    return key


def authn_request(settings: metadata.IdpSaml, *, request_id: str, acs_url: str, sp_entity_id: str,
                  force_authn: bool, requested_authn_context: tuple[str, ...], comparison: str, now: int) -> bytes:
    """The <samlp:AuthnRequest> element, serialized (UTF-8, no XML declaration)."""
    root = etree.Element(samlp("AuthnRequest"), nsmap={"samlp": PROTOCOL, "saml": ASSERTION})
    root.set("ID", request_id)
    root.set("Version", VERSION)
    root.set("IssueInstant", instants.write(now))
    root.set("Destination", settings.sso_url)
    root.set("AssertionConsumerServiceURL", acs_url)
    root.set("ProtocolBinding", HTTP_POST)
    if force_authn:
        root.set("ForceAuthn", "true")
    etree.SubElement(root, saml("Issuer")).text = sp_entity_id
    policy = etree.SubElement(root, samlp("NameIDPolicy"), AllowCreate="true")
    if settings.name_id_format:
        policy.set("Format", settings.name_id_format)
    if requested_authn_context:
        context = etree.SubElement(root, samlp("RequestedAuthnContext"), Comparison=comparison)
        for class_ref in requested_authn_context:
            etree.SubElement(context, saml("AuthnContextClassRef")).text = class_ref
    return bytes(etree.tostring(root, encoding="utf-8", xml_declaration=False))


def redirect_url(endpoint: str, parameter: str, xml: bytes, relay_state: str, key: sp_keys.SpKey | None) -> str:
    """`endpoint` with the message DEFLATEd (raw, RFC 1951), base64-encoded and URL-encoded (Bindings 3.4.4.1),
    signed with `key` when given."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    encoded = base64.b64encode(compressor.compress(xml) + compressor.flush()).decode("ascii")
    query = (redirect_signature.signed_query(parameter, encoded, relay_state, key.private_key) if key else
             redirect_signature.octets([(parameter, encoded), *([("RelayState", relay_state)] if relay_state else [])]))
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"
