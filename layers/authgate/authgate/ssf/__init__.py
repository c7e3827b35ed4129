"""Shared Signals (OpenID Shared Signals Framework: CAEP and RISC events) sent from the audit trail."""
