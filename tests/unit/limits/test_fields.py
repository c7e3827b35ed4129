from __future__ import annotations

import pytest

from authgate.limits.fields import ServiceLimit, header_fields, policy_field, ratelimit_field
from authgate.limits.policies import Policy

TENANT = Policy("tenant", 3000, 60)
CLIENT = Policy("client", 1200, 60)


def test_fields_use_the_draft_11_structured_list_syntax() -> None:
    limits = [ServiceLimit(TENANT, 2999, 42), ServiceLimit(CLIENT, 0, 42)]

    assert header_fields(limits) == {
        "RateLimit-Policy": '"tenant";q=3000;w=60, "client";q=1200;w=60',
        "RateLimit": '"tenant";r=2999;t=42, "client";r=0;t=42',
    }


def test_remaining_and_reset_are_never_negative() -> None:
    assert ratelimit_field([ServiceLimit(TENANT, -3, -1)]) == '"tenant";r=0;t=0'


def test_policy_names_must_be_plain_tokens() -> None:
    with pytest.raises(ValueError):
        policy_field([Policy('bad"name', 1, 1)])
