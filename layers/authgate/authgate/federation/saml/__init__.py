"""SAML 2.0 Web Browser SSO, SP-initiated (saml-profiles-2.0-os 4.1): authgate as a tenant's service provider."""
