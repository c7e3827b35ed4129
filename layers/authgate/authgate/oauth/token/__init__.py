"""The token endpoint (RFC 6749 3.2) and its grants, client authentication, revocation (RFC 7009) and introspection (RFC 7662)."""
