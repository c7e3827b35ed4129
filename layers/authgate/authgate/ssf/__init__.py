"""The Shared Signals transmitter (OpenID Shared Signals Framework 1.0; docs/shared-signals.md): its configuration
document, the stream management API, poll delivery, and the events it sends (CAEP 1.0, RISC 1.0)."""
