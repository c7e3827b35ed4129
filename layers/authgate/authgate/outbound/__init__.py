"""Requests to URLs someone else chose (metadata documents, keys, back-channel logout): one set of SSRF rules."""
