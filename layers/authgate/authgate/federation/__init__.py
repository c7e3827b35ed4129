"""Upstream identity providers a person signs in with (OpenID Connect, SAML 2.0): authgate as the relying party."""
