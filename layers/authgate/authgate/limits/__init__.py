"""Rate limiting on DynamoDB and the IETF RateLimit header fields (docs/limits.md).

    state = limits.enforce(request, principal)   # API routes: tenant, client, source IP
    guard = AuthFailureGuard("client")            # token endpoint: failed client authentication
                                                  # (authgate.limits.auth_failures)

The failed-authentication guard is imported from its own module by the endpoints that
authenticate clients or users, so the charges function does not load it.
"""

from __future__ import annotations

from authgate.limits.limiter import ApiLimiter, RateLimitState, enforce

__all__ = ["ApiLimiter", "RateLimitState", "enforce"]
