"""authgate.redaction: what looks like a credential never reaches a log line (contract 5.7, RFC 6750 5.3)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from authgate.redaction import REDACTED, is_secret_key, redact, redact_text

JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"


@pytest.mark.parametrize("text, expected", [
    ("grant_type=authorization_code&code=abc123&code_verifier=v3r1f1er&redirect_uri=x",
     f"grant_type=authorization_code&code={REDACTED}&code_verifier={REDACTED}&redirect_uri=x"),
    ("username=alice&password=hunter2&csrf=c5rf&request_blob=b10b",
     f"username=alice&password={REDACTED}&csrf={REDACTED}&request_blob={REDACTED}"),
    ("token=opaque&token_type_hint=refresh_token", f"token={REDACTED}&token_type_hint=refresh_token"),
    ("Authorization: Bearer abc.def", f"Authorization: {REDACTED}"),
    ("cookie: ag_bind=xyz; other=1", f"cookie: {REDACTED}"),
    ("got Basic ZGVtbzpzZWNyZXQ= from client", f"got Basic {REDACTED} from client"),
    ('{"Authorization": "Basic ZGVtbzpzZWNyZXQ=", "x": 1}', f'{{"Authorization": "{REDACTED}", "x": 1}}'),
    ("{'refresh_token': 'r1', 'token_type': 'Bearer'}", f"{{'refresh_token': '{REDACTED}', 'token_type': 'Bearer'}}"),
    (f"token {JWT} rejected", f"token {REDACTED} rejected"),
    ("error_code=invalid_grant client_id=demo-web", "error_code=invalid_grant client_id=demo-web"),
    ("grant_type=urn:ietf:params:oauth:grant-type:device_code&device_code=BCDFGHJKLM.s3cr3t",
     f"grant_type=urn:ietf:params:oauth:grant-type:device_code&device_code={REDACTED}"),
    ("GET /oauth/device?user_code=BCDFG-HJKLM", f"GET /oauth/device?user_code={REDACTED}"),
])
def test_redact_text(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_redact_masks_secret_members_at_any_depth_and_stringifies_objects() -> None:
    value = {"headers": {"Authorization": "Bearer x", "Accept": "application/json"},
             "form": [{"client_secret": "s3cr3t", "client_id": "demo"}], "new_refresh_token": "r",
             "token_type": "Bearer", "error": ValueError("password=hunter2"), "status": 400, "ok": True,
             "empty_password": None}
    assert redact(value) == {
        "headers": {"Authorization": REDACTED, "Accept": "application/json"},
        "form": [{"client_secret": REDACTED, "client_id": "demo"}], "new_refresh_token": REDACTED,
        "token_type": "Bearer", "error": f"password={REDACTED}", "status": 400, "ok": True,
        "empty_password": None}


@pytest.mark.parametrize("name, secret", [
    ("Authorization", True), ("X-Api-Key", True), ("code", True), ("subject_token", True),
    ("X-Amz-Security-Token", True), ("token_type", False), ("error_code", False), ("client_id", False),
    ("grant_id", False), ("status", False),
])
def test_is_secret_key(name: str, secret: bool) -> None:
    assert is_secret_key(name) is secret


PIECES = [*"aAbBeEjJyY\\\"'=: .-_/0123456789", "bearer ", "eyJ", "token", "Cookie", "x-api-key"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join) | st.text(max_size=80))
@example("token=abc")
@example('{"password": "x"}')
@example("'secret': 'x'")
@example("Bearer abc")
@example("cookie: a")
@example("X-Api-Key: k")
@example("Proxy-Authorization: k")
@example(JWT)
@example("x Basic dXNlcg")
@example("Digest abc")
@example("DPoP abc")
def test_the_quick_check_never_skips_a_redaction(text: str) -> None:
    """redact_text skips the substitutions only when none of them could match."""
    from authgate.redaction import _secret_patterns

    full = text
    for pattern, replacement in _secret_patterns():
        full = pattern.sub(replacement, full)
    assert redact_text(text) == full


def test_short_values_are_memoised_and_long_ones_scanned_every_time() -> None:
    """docs/decisions.md, measured shortcuts: the same few short values recur in every line."""
    from authgate.redaction import _redact_short

    _redact_short.cache_clear()
    assert [redact_text("Bearer abc"), redact_text("Bearer abc")] == [f"Bearer {REDACTED}"] * 2
    assert _redact_short.cache_info().hits == 1
    long = "x" * 64 + " Bearer abc"
    assert redact_text(long) == "x" * 64 + f" Bearer {REDACTED}"
    assert (_redact_short.cache_info().hits, _redact_short.cache_info().misses) == (1, 1)
    assert _redact_short.cache_info().maxsize == 4096
