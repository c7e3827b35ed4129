"""The in-Lambda rate limits (docs/limits.md) and the bounds one limiter item sets on them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from authgate.settings.environment import SettingsError, integer


class Limits(NamedTuple):
    """In-Lambda rate limits (docs/limits.md): fixed windows, quotas in requests per window."""

    # API routes: one window shared by the per-tenant, per-client and per-source-IP quotas.
    window: int = 60
    tenant: int = 3000
    client: int = 1200
    ip: int = 600
    # Failed client authentications at the token endpoint (and failed logins), per window.
    auth_failure_window: int = 300
    auth_failure_client: int = 10
    auth_failure_ip: int = 30


# Limits of one limiter item (authgate.limits.partitions). Every admitted request adds at most two
# ~18-byte counters, so 10 000 admissions per window keep an item well under DynamoDB's 400 KB;
# 500 writes per second leave half of one partition's 1 000 WCU/s for refusals and growth.
PARTITION_QUOTA_MAX = 10_000
PARTITION_WRITE_RATE = 500
# A tenant quota is split into at most this many partitions (items) per window.
MAX_PARTITIONS = 256
MAX_TENANT_QUOTA = MAX_PARTITIONS * PARTITION_QUOTA_MAX
# One client's counter lives in one item: at most this many admissions per window per client.
MAX_CLIENT_QUOTA = 30_000

_LIMITS = Limits()


def limits(env: Mapping[str, str]) -> Limits:
    """The AUTHGATE_RATE_* and AUTHGATE_AUTH_FAILURE_* variables, each within what one item can count."""
    read = Limits(
        window=integer(env, "AUTHGATE_RATE_WINDOW", _LIMITS.window, 1, 3600),
        tenant=integer(env, "AUTHGATE_RATE_TENANT", _LIMITS.tenant, 1, MAX_TENANT_QUOTA),
        client=integer(env, "AUTHGATE_RATE_CLIENT", _LIMITS.client, 1, MAX_CLIENT_QUOTA),
        ip=integer(env, "AUTHGATE_RATE_IP", _LIMITS.ip, 1, PARTITION_QUOTA_MAX),
        auth_failure_window=integer(env, "AUTHGATE_AUTH_FAILURE_WINDOW", _LIMITS.auth_failure_window, 10, 86400),
        auth_failure_client=integer(env, "AUTHGATE_AUTH_FAILURE_CLIENT", _LIMITS.auth_failure_client, 1, 100_000),
        auth_failure_ip=integer(env, "AUTHGATE_AUTH_FAILURE_IP", _LIMITS.auth_failure_ip, 1, 100_000),
    )
    # A client's requests all count in one item: faster than that item takes writes is a hot item.
    if read.client > PARTITION_WRITE_RATE * read.window:
        raise SettingsError(f"AUTHGATE_RATE_CLIENT must be at most {PARTITION_WRITE_RATE} per second "
                            f"({PARTITION_WRITE_RATE * read.window} per {read.window} s window), got {read.client}")
    return read
