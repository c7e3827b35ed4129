"""What an operator changes of the stack's configuration: one implementation for the `authgate` commands and the
console, with the same checks and the same messages (input: what may be typed; clients: a registered client's
registration, its secret, its removal; tenants and tenant_settings: a tenant and its settings)."""
