"""Rate limiting on DynamoDB and the IETF RateLimit header fields (docs/limits.md).

    state = limits.enforce(request, principal)   # API routes: tenant, client, source IP
    guard = limits.AuthFailureGuard("client")     # token endpoint: failed client authentication
"""

from __future__ import annotations

from authgate.limits.auth_failures import AuthFailureGuard
from authgate.limits.limiter import ApiLimiter, RateLimitState, enforce

__all__ = ["ApiLimiter", "AuthFailureGuard", "RateLimitState", "enforce"]
