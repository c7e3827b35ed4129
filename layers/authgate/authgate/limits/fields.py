"""The RateLimit-Policy and RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11 3, 4; RFC 9651 lists).

Examples and the partition key `pk`: docs/limits.md ("Headers"), docs/capacity.md.
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
