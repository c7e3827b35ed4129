"""Generators of the reference parts of docs/ (error codes) from their sources."""
