"""Discovery documents: authorization server metadata (RFC 8414) and protected resource metadata (RFC 9728)."""
