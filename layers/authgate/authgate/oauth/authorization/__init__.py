"""The authorization endpoint (RFC 6749 4.1) and pushed authorization requests (RFC 9126)."""
