"""Sign-in through a tenant's identity providers: where their answers arrive (docs/federation.md)."""
