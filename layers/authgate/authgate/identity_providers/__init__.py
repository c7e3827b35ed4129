"""Trusted identity providers of a tenant: whose identity assertions (ID-JAG) it accepts, apart from storage."""
