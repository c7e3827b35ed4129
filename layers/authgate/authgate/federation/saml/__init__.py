"""SAML 2.0 Web Browser SSO, SP-initiated (saml-profiles-2.0-os 4.1): authgate as a tenant's service provider.

`start` (authn_request) sends the person to the IdP with an AuthnRequest by HTTP-Redirect; `finish`
(response) takes the IdP's Response by HTTP-POST and returns the UpstreamIdentity it vouches for;
`logout_url` ends the IdP's session (Single Logout) where it offers one; `sp_metadata` is what the
IdP's administrator imports; `metadata.parse` reads the IdP's metadata into its record. Importing
this package loads lxml and signxml: only a SAML sign-in does.
"""

from authgate.federation.saml.authn_request import start
from authgate.federation.saml.logout import logout_url
from authgate.federation.saml.response import finish
from authgate.federation.saml.sp_metadata import sp_metadata

__all__ = ["finish", "logout_url", "sp_metadata", "start"]
