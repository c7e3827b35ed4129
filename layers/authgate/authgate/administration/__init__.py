"""What an operator changes of the stack's configuration: one implementation for the `authgate` commands and the
console, with the same checks and the same messages.

Each module is one noun: input (what may be typed, and the refusal both callers show: `input.InvalidInput`),
clients (a registered client's registration, its secret, its removal), tenants and tenant_settings (a tenant and
its settings), resources, signing_keys, identity_providers (with identity_provider_input and saml_metadata); each
checks what it accepts and returns what it did.
"""
