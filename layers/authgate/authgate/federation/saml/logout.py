"""SP-initiated Single Logout (SAML Core 3.7.1; Profiles 4.4): the LogoutRequest that ends the IdP's session.

Sent by HTTP-Redirect to the IdP's SingleLogoutService when its metadata lists one (no URL
otherwise: the person's authgate session ends all the same). It names the person as the
assertion did (the NameID's format and value, from UpstreamIdentity.subject; no qualifiers, which
the subject does not keep) and the IdP's
session (SessionIndex). Signed as the AuthnRequests are (authn_request.signing_key): by the
binding's query signature once the stack has a SAML signing key. Profiles 4.4.3.1 has a
LogoutRequest sent by HTTP-Redirect or HTTP-POST signed (and 4.4.4.1 the requester authenticate
itself by signing the message or by the binding's own mechanism, which for HTTP-Redirect is this
signature); without a key it goes unsigned, and an IdP that insists answers with an error page
(authgate's own sign-out has already happened).
The IdP's LogoutResponse comes back to authgate's SLO URL (logout_response checks it).
"""

from __future__ import annotations

from lxml import etree

from authgate import clock
from authgate.federation.saml import instants, metadata
from authgate.federation.saml.authn_request import (
    MAX_RELAY_STATE,
    new_id,
    redirect_url,
    signing_key,
)
from authgate.federation.saml.vocabulary import (
    ASSERTION,
    PROTOCOL,
    UNSPECIFIED,
    VERSION,
    saml,
    samlp,
)
from authgate.identity_providers.model import IdentityProvider


def logout_url(idp: IdentityProvider, *, sp_entity_id: str, subject: str, session_index: str, relay_state: str,
               now: int | None = None) -> tuple[str, str] | None:
    """(the URL to send the browser to, the request's ID), or None when the IdP offers no Single Logout."""
    if len(relay_state.encode("utf-8")) > MAX_RELAY_STATE:
        raise ValueError(f"RelayState is more than {MAX_RELAY_STATE} bytes")
    settings = metadata.of(idp.saml)
    if not settings.slo_url:
        return None
    name_format, _, name_id = subject.partition("|")
    request_id = new_id()
    root = etree.Element(samlp("LogoutRequest"), nsmap={"samlp": PROTOCOL, "saml": ASSERTION}, ID=request_id,
                         Version=VERSION, IssueInstant=instants.write(clock.seconds() if now is None else now),
                         Destination=settings.slo_url)
    etree.SubElement(root, saml("Issuer")).text = sp_entity_id
    name = etree.SubElement(root, saml("NameID"))
    if name_format != UNSPECIFIED:
        name.set("Format", name_format)
    name.text = name_id
    if session_index:
        etree.SubElement(root, samlp("SessionIndex")).text = session_index
    xml = bytes(etree.tostring(root, encoding="utf-8"))
    return redirect_url(settings.slo_url, "SAMLRequest", xml, relay_state, signing_key(settings)), request_id
