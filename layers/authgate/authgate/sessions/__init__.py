"""Sign-in sessions (single sign-on): the record and its validity rule (docs/oidc.md)."""
