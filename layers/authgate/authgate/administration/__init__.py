"""What an operator changes of the stack's configuration (a tenant's settings, ...): read and checked once, for the
admin commands (`authgate tenants ...`) and the console alike, with the same messages (docs/console.md)."""
