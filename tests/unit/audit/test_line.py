"""authgate.audit.line: the audit line encoded in one pass is, to the byte, the event redacted as every log line is
(authgate.audit.record.redacted) and encoded as the logs encode a line; memoised members and all."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from authgate import audit
from authgate.audit.event import Party, build, stamp
from authgate.audit.line import text_of
from authgate.audit.record import MARKER, redacted

# As authgate.logs encodes every line.
ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)
SECRETS = ["Bearer abc.def.ghi", "code=SECRET-CODE", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "password=p4ss",
           '"client_secret": "s"', "plain", "", "é ü 日本 \u2028 \x00 \t \"quoted\" \\ back"]


def reference(event: dict[str, Any]) -> str:
    return ENCODER.encode({"level": "INFO", "message": "audit", "service": "authgate", MARKER: 1,
                           "event": redacted(copy.deepcopy(event))})


def both(action: Any, tenant: str, actor: Party, target: Party, reason: str | None,
         details: dict[str, Any] | None) -> tuple[str, str]:
    """The line of one act in one pass, and the line of its event redacted and encoded: the same stamp."""
    stamped = stamp(action)
    original = copy.deepcopy(details)
    text = text_of(stamped, action, tenant, actor, target, "failure", reason, details)
    assert details == original  # never changed
    return text, reference(build(action, tenant, actor=actor, target=target, outcome="failure", reason=reason,
                                 details=details, stamped=stamped))


def lines(details: dict[str, Any] | None, *, reason: str | None = None, text: str = "x") -> tuple[str, str]:
    audit.bind(f"203.0.113.9 {text}", f"ua {text}", f"req {text}")
    return both("client.changed", f"tenant {text}", audit.operator(f"op {text}", f"arn {text}"),
                audit.user(f"u {text}", username=f"name {text}", email=f"e {text}"), reason, details)


@pytest.mark.parametrize("text", SECRETS)
def test_every_member_that_may_come_from_a_request_is_redacted_as_the_logs_do(text: str) -> None:
    details = {"note": text, "client_secret": text, "token": "", "scopes": [text, "openid"], "secret_list": [],
               "jti": text, "refreshable": True, "openid": False, "none": None, "count": 3, "ratio": 0.5,
               "nested": {"access_token": text, "list": [text, {"password": text}]}, "pair": ("a", text), 7: text}
    for _ in range(2):  # again, from the memo
        for ours, theirs in (lines(details, reason=f"why {text}", text=text), lines(None, text=text),
                             lines({}, text=text), lines({"username": text, "email": ""}, text=text),
                             both("key.rotated", "", audit.SYSTEM, audit.operator(text, text), text, {"k": text})):
            assert ours == theirs


def test_a_tenant_that_is_no_text_is_encoded_as_the_event_has_it() -> None:
    audit.bind("", None, "req-2")
    ours, theirs = both("token.revoked", None, audit.SYSTEM, audit.client("web"), "", None)  # type: ignore[arg-type]
    assert ours == theirs and json.loads(ours)["event"]["tenant"] is None


def test_the_token_endpoints_event_is_the_same_line_event_after_event() -> None:
    audit.bind("127.0.0.1", "curl/8.5.0", "req-1")
    facts = {"grant_type": "client_credentials", "client_id": "demo-service", "scopes": ["charges:read"],
             "resource": "http://127.0.0.1:3000/charges", "token_type": "Bearer", "jti": "5SJ66bkkchmOZSFHB90bKWmk",
             "refreshable": False, "openid": False}
    client = audit.client("demo-service")
    for _ in range(3):
        ours, theirs = both("token.issued", "demo", client, client, None, facts)
        assert ours == theirs
        assert json.loads(ours)["event"]["details"] == facts


scalars = st.one_of(st.text(max_size=40), st.booleans(), st.none(), st.integers(), st.floats(allow_nan=False))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=12), inner, max_size=3)),
                      max_leaves=8)
names = st.one_of(st.sampled_from(["jti", "token", "code", "scopes", "note", "password_hint", "x"]), st.text(max_size=12))


@settings(max_examples=200, deadline=None)
@given(details=st.dictionaries(names, values, max_size=6), text=st.text(max_size=30),
       reason=st.one_of(st.none(), st.text(max_size=20)))
def test_any_event_is_the_same_line(details: dict[str, Any], text: str, reason: str | None) -> None:
    ours, theirs = lines(details, reason=reason, text=text)
    assert ours == theirs
