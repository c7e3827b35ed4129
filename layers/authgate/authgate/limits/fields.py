"""The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11, sections 3 and 4).

    RateLimit-Policy: "tenant";q=3000;w=60, "client";q=1200;w=60
    RateLimit: "tenant";r=2999;t=42, "client";r=1199;t=42

Both are Structured Field Lists (RFC 9651) whose items are Strings naming the policy. A policy
allocated per partition (a large tenant's quota split over items, authgate.limits.partitions)
carries the partition key as `pk`, a Byte Sequence (RFC 9651 section 3.3.5), on both fields:

    RateLimit-Policy: "tenant";q=10000;w=60;pk=:MTcvNjA=:
A 429 adds Retry-After (RFC 9110 10.2.3) no earlier than the end of the effective window
(draft section 6).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from authgate.limits.policies import Policy

# sf-string allows printable ASCII; policy names are ours, so keep them to a safe subset.
_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


class ServiceLimit(NamedTuple):
    """The current service limit under one policy (draft section 4.1)."""

    policy: Policy
    remaining: int
    reset: int  # seconds until the window ends (the "t" parameter)


def _name(policy: Policy) -> str:
    if not _NAME.match(policy.name):
        raise ValueError(f"policy name {policy.name!r} is not a plain token")
    return f'"{policy.name}"'


def _pk(policy: Policy) -> str:
    return f";pk=:{policy.partition}:" if policy.partition else ""


def policy_field(policies: Iterable[Policy]) -> str:
    """RateLimit-Policy: one quota policy item per policy."""
    return ", ".join(f"{_name(p)};q={p.quota};w={p.window}{_pk(p)}" for p in policies)


def ratelimit_field(limits: Iterable[ServiceLimit]) -> str:
    """RateLimit: the available quota and effective window per policy."""
    return ", ".join(f"{_name(s.policy)};r={max(0, s.remaining)};t={max(0, s.reset)}{_pk(s.policy)}"
                     for s in limits)


def header_fields(limits: Iterable[ServiceLimit]) -> dict[str, str]:
    """Both fields, for a response on a limited route."""
    limits = list(limits)
    return {"RateLimit-Policy": policy_field(s.policy for s in limits),
            "RateLimit": ratelimit_field(limits)}
