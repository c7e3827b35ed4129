"""The IdP's answer to authgate's LogoutRequest (SAML Core 3.7.2; Profiles 4.4.4.2), by HTTP-Redirect to the SLO URL.

Checked in this order, each failure an UpstreamRefused with its reason:
1. SAMLResponse base64-decoded and DEFLATE-inflated (Bindings 3.4.4.1) within a size bound, parsed
   under safe_xml's rules;
2. a <samlp:LogoutResponse> of version 2.0;
3. its signature when it has one: the binding's query signature (SigAlg and Signature,
   redirect_signature), or an enveloped XML signature, verified with the IdP record's
   certificates only (and then read from the tree the signature covers). An unsigned answer is
   taken (the binding allows it, and SimpleSAMLphp, Entra ID and Okta send them so unless told
   otherwise): what it can say is only whether the IdP ended its own session -- authgate's
   session ended before the person was sent there, and nothing here opens or ends one;
4. InResponseTo the LogoutRequest this browser was sent with (its ID kept in the browser's sealed
   sign-out cookie; no unsolicited answer is taken);
5. Destination authgate's SLO URL (required when the message is signed: Bindings 3.4.5.2);
6. Issuer the IdP's entity ID (Profiles 4.4.4.2: it must be there);
7. the top-level status Success (anything else: the IdP says it did not sign the person out).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from lxml import etree

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml import metadata, redirect_signature, safe_xml, signature
from authgate.federation.saml.response import check_status, document
from authgate.federation.saml.vocabulary import VERSION, saml, samlp
from authgate.identity_providers.model import IdentityProvider

# A LogoutResponse is under 2 KB; a signed one under 5 KB.
MAX_BYTES = 64 * 1024


def check(idp: IdentityProvider, params: Mapping[str, str], *, slo_url: str, expected_request_id: str) -> None:
    """Return when `params` (the query's decoded values) hold the IdP's successful answer to the request sent;
    UpstreamRefused naming the first rule that failed otherwise."""
    try:
        settings = metadata.of(idp.saml)
    except metadata.MetadataInvalid as invalid:
        raise UpstreamRefused("idp_not_saml", str(invalid)) from None
    if not params.get("SAMLResponse"):
        raise UpstreamRefused("not_a_logout_response", "no SAMLResponse")
    root = document(params["SAMLResponse"], deflated=True, max_bytes=MAX_BYTES)
    if root.tag != samlp("LogoutResponse"):
        raise UpstreamRefused("not_a_logout_response", f"the message is a {etree.QName(root).localname}")
    if root.get("Version") != VERSION:
        raise UpstreamRefused("version", f"LogoutResponse Version {root.get('Version')!r}")
    signed = redirect_signature.is_signed(params) or signature.is_signed(root)
    if redirect_signature.is_signed(params):
        redirect_signature.verify(params, "SAMLResponse", settings.certificates)
    elif signature.is_signed(root):
        try:
            root = signature.verified(root, settings.certificates, safe_xml.parser())
        except signature.SignatureInvalid as invalid:
            raise UpstreamRefused(invalid.reason, invalid.internal) from None
    answered = root.get("InResponseTo") or ""
    if not expected_request_id or not hmac.compare_digest(answered.encode(), expected_request_id.encode()):
        raise UpstreamRefused("in_response_to", "the LogoutResponse does not answer the LogoutRequest sent"
                              if answered else "an unsolicited LogoutResponse (no InResponseTo)")
    destination = root.get("Destination")
    if destination != slo_url and (destination is not None or signed):
        raise UpstreamRefused("destination", "the LogoutResponse's Destination is not authgate's SLO URL")
    issuers = root.findall(saml("Issuer"))
    if len(issuers) != 1 or safe_xml.text(issuers[0]) != settings.entity_id:
        raise UpstreamRefused("issuer", "the LogoutResponse's Issuer is not the IdP's entity ID")
    check_status(root)
