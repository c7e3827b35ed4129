"""Signing keys and their lifecycle, JWKS, RFC 9068 access tokens, and the bearer guard."""
