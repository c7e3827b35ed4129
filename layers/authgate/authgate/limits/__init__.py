"""Rate limiting on DynamoDB and the IETF RateLimit header fields (docs/limits.md).

    state = enforce(request, principal)     # API routes: tenant, client, source IP (limits.limiter)
    guard = AuthFailureGuard("client")      # token endpoint: failed client authentication
                                            # (limits.auth_failures)
    Quota("registration", 3600).spend(...)  # any other fixed-window count: registrations per
                                            # address, metadata fetch budgets (limits.quota)

Every fixed-window count of authgate is one of these three; nothing else reads or writes
LimitsTable (stores.limits).

Each is imported from its own module, so a function loads only the limiter it uses (the
token function never loads the API limiter, the charges function never the failed-auth guard).
"""
