"""Sign-in through a tenant's identity providers (OpenID Connect, SAML 2.0): the person they vouch for, how that
person becomes one of the tenant's users (linked identities), and what assurance their sign-in carries."""
