"""Shared Signals event streams (OpenID Shared Signals Framework 1.0 8): a receiver's stream, its subjects, the
event types it may carry, apart from storage and HTTP (docs/shared-signals.md)."""
