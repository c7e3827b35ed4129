"""Outbound deliveries: calls authgate makes to its clients' servers later, with retries (back-channel logout, approval
webhooks, mail, Shared Signals SETs)."""
