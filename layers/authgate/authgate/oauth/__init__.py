"""OAuth 2.0 authorization server: grants (RFC 6749), PKCE (RFC 7636), client authentication, authorize flow."""
