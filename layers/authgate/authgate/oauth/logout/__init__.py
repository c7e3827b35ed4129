"""Sign-out: OpenID Connect RP-Initiated Logout 1.0 (docs/oidc.md)."""
