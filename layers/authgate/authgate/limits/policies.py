"""Quota policies: a name, a quota in requests and a window in seconds, built from settings."""

from __future__ import annotations

import math
from typing import NamedTuple

from authgate.caches import cached
from authgate.settings import PARTITION_QUOTA_MAX, PARTITION_WRITE_RATE, Settings, get_settings


class Policy(NamedTuple):
    """One quota policy (draft-ietf-httpapi-ratelimit-headers-11 section 3.1)."""

    name: str
    quota: int
    window: int
    # The partition key (`pk`, base64 of opaque bytes) when the quota is allocated per partition
    # of the tenant (authgate.limits.partitions); empty when it is not partitioned.
    partition: str = ""


class ApiPolicies(NamedTuple):
    """The API routes' three quotas; they share one window so one item holds all three counters.

    `partitions`: how many items a tenant's window is split into (authgate.limits.partitions).
    """

    tenant: Policy
    client: Policy
    ip: Policy
    partitions: int = 1

    def all(self) -> tuple[Policy, Policy, Policy]:
        return (self.tenant, self.client, self.ip)


class AuthFailurePolicies(NamedTuple):
    """Failed authentications allowed per credential subject and per source IP in a window."""

    subject: Policy
    ip: Policy

    def all(self) -> tuple[Policy, Policy]:
        return (self.subject, self.ip)


def count_for(tenant: Policy) -> int:
    """How many partitions the tenant policy needs (1 for quotas one item can carry)."""
    by_size = math.ceil(tenant.quota / PARTITION_QUOTA_MAX)
    by_rate = math.ceil(tenant.quota / tenant.window / PARTITION_WRITE_RATE)
    return max(1, by_size, by_rate)


def api_policies(settings: Settings | None = None) -> ApiPolicies:
    limits = (settings or get_settings()).limits
    tenant = Policy("tenant", limits.tenant, limits.window)
    return ApiPolicies(
        tenant=tenant,
        client=Policy("client", limits.client, limits.window),
        ip=Policy("ip", limits.ip, limits.window),
        partitions=count_for(tenant),
    )


@cached
def current_api_policies() -> ApiPolicies:
    """The deployment's API policies, built once per process (caches.reset() forgets them)."""
    return api_policies()


@cached
def current_auth_failure_policies(kind: str) -> AuthFailurePolicies:
    """The deployment's failed-auth policies for `kind` (a function guards one kind), built once
    per process (caches.reset() forgets them)."""
    return auth_failure_policies(kind)


def auth_failure_policies(kind: str = "client", settings: Settings | None = None) -> AuthFailurePolicies:
    """`kind` names the subject: "client" at the token endpoint, "user" at the login form."""
    limits = (settings or get_settings()).limits
    return AuthFailurePolicies(
        subject=Policy(f"failed-auth-{kind}", limits.auth_failure_client, limits.auth_failure_window),
        ip=Policy("failed-auth-ip", limits.auth_failure_ip, limits.auth_failure_window),
    )
