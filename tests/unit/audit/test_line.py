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
from authgate.audit.event import build
from authgate.audit.line import text_of
from authgate.audit.record import MARKER, redacted

# As authgate.logs encodes every line.
ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)
SECRETS = ["Bearer abc.def.ghi", "code=SECRET-CODE", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "password=p4ss",
           '"client_secret": "s"', "plain", "", "é ü 日本 \u2028 \x00 \t \"quoted\" \\ back"]


def reference(event: dict[str, Any]) -> str:
    return ENCODER.encode({"level": "INFO", "message": "audit", "service": "authgate", MARKER: 1,
                           "event": redacted(copy.deepcopy(event))})


def event_of(details: dict[str, Any] | None, *, reason: str | None = None, text: str = "x") -> dict[str, Any]:
    audit.bind(f"203.0.113.9 {text}", f"ua {text}", f"req {text}")
    return build("client.changed", f"tenant {text}", actor=audit.operator(f"op {text}", f"arn {text}"),
                 target=audit.user(f"u {text}", username=f"name {text}", email=f"e {text}"), outcome="failure",
                 reason=reason, details=details)


@pytest.mark.parametrize("text", SECRETS)
def test_every_member_that_may_come_from_a_request_is_redacted_as_the_logs_do(text: str) -> None:
    details = {"note": text, "client_secret": text, "token": "", "scopes": [text, "openid"], "secret_list": [],
               "jti": text, "refreshable": True, "openid": False, "none": None, "count": 3, "ratio": 0.5,
               "nested": {"access_token": text, "list": [text, {"password": text}]}, "pair": ("a", text), 7: text}
    for event in (event_of(details, reason=f"why {text}", text=text), event_of(None, text=text),
                  event_of({}, text=text)):
        assert text_of(event) == reference(event)
        assert text_of(event) == reference(event)  # again, from the memo


def test_the_token_endpoints_event_is_the_same_line_event_after_event() -> None:
    audit.bind("127.0.0.1", "curl/8.5.0", "req-1")
    facts = {"grant_type": "client_credentials", "client_id": "demo-service", "scopes": ["charges:read"],
             "resource": "http://127.0.0.1:3000/charges", "token_type": "Bearer", "jti": "5SJ66bkkchmOZSFHB90bKWmk",
             "refreshable": False, "openid": False}
    events = [build("token.issued", "demo", actor=audit.client("demo-service"), target=audit.client("demo-service"),
                    details=facts) for _ in range(3)]
    assert [text_of(e) for e in events] == [reference(e) for e in events]
    assert json.loads(text_of(events[0]))["event"]["details"] == facts


scalars = st.one_of(st.text(max_size=40), st.booleans(), st.none(), st.integers(), st.floats(allow_nan=False))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=12), inner, max_size=3)),
                      max_leaves=8)
names = st.one_of(st.sampled_from(["jti", "token", "code", "scopes", "note", "password_hint", "x"]), st.text(max_size=12))


@settings(max_examples=200, deadline=None)
@given(details=st.dictionaries(names, values, max_size=6), text=st.text(max_size=30),
       reason=st.one_of(st.none(), st.text(max_size=20)))
def test_any_event_is_the_same_line(details: dict[str, Any], text: str, reason: str | None) -> None:
    event = event_of(details, reason=reason, text=text)
    assert text_of(event) == reference(event)
