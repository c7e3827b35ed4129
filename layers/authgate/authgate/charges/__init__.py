"""Charges: validation, invoices, idempotent creation, tenant isolation."""
