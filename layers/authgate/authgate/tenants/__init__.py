"""Tenants: the accounts clients and users belong to, and each one's policy (currencies, scopes, approvals, self-registered clients), apart from storage."""
