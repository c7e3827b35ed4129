"""Quota policies: a name, a quota in requests and a window in seconds, built from settings."""

from __future__ import annotations

from dataclasses import dataclass

from authgate.settings import Settings, get_settings


@dataclass(frozen=True)
class Policy:
    """One quota policy (draft-ietf-httpapi-ratelimit-headers-11 section 3.1)."""

    name: str
    quota: int
    window: int


@dataclass(frozen=True)
class ApiPolicies:
    """The API routes' three quotas; they share one window so one item holds all three counters."""

    tenant: Policy
    client: Policy
    ip: Policy

    def all(self) -> tuple[Policy, Policy, Policy]:
        return (self.tenant, self.client, self.ip)


@dataclass(frozen=True)
class AuthFailurePolicies:
    """Failed authentications allowed per credential subject and per source IP in a window."""

    subject: Policy
    ip: Policy

    def all(self) -> tuple[Policy, Policy]:
        return (self.subject, self.ip)


def api_policies(settings: Settings | None = None) -> ApiPolicies:
    limits = (settings or get_settings()).limits
    return ApiPolicies(
        tenant=Policy("tenant", limits.tenant, limits.window),
        client=Policy("client", limits.client, limits.window),
        ip=Policy("ip", limits.ip, limits.window),
    )


def auth_failure_policies(kind: str = "client", settings: Settings | None = None) -> AuthFailurePolicies:
    """`kind` names the subject: "client" at the token endpoint, "user" at the login form."""
    limits = (settings or get_settings()).limits
    return AuthFailurePolicies(
        subject=Policy(f"failed-auth-{kind}", limits.auth_failure_client, limits.auth_failure_window),
        ip=Policy("failed-auth-ip", limits.auth_failure_ip, limits.auth_failure_window),
    )
