"""What an operator changes of the stack's configuration: one implementation for the `authgate` commands and the
console, with the same checks and the same messages (identity_providers: a tenant's identity providers, ...)."""
