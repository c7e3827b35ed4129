"""Registered OAuth clients (RFC 6749 2, RFC 7591 2): the model and its rules, apart from storage."""
