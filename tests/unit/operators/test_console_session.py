"""operators.console_session: an operator's console session is keyed by the SHA-256 of its cookie's secret under its
own prefix (never a sign-in session's key), lives until its end, and never shows its ID token."""

from __future__ import annotations

import hashlib

from authgate.operators.console_session import FIELDS, KEY_PREFIX, ConsoleSession, session_key

SESSION = ConsoleSession("console#h", "operators", "olivia", "usr_olivia", 3, 1_750_000_000, 1_750_043_200,
                         1_750_000_010, "sid-1", "header.claims.signature")


def test_the_key_is_the_prefix_and_the_secrets_sha256() -> None:
    assert session_key("the-secret") == "console#" + hashlib.sha256(b"the-secret").hexdigest()
    assert session_key("é").startswith(KEY_PREFIX)  # a sign-in session's key is a bare hash
    assert session_key("a") != session_key("b")


def test_a_session_lives_until_its_end() -> None:
    assert SESSION.live(1_750_043_199)
    assert not SESSION.live(1_750_043_200)


def test_its_id_token_is_no_public_field_and_empty_ones_are_not_stored() -> None:
    from authgate import records

    assert records.public_view(FIELDS, SESSION._asdict()) == {
        "session_hash": "console#h", "tenant_id": "operators", "username": "olivia", "user_id": "usr_olivia",
        "generation": 3, "auth_time": 1_750_000_000, "expires_at": 1_750_043_200, "created_at": 1_750_000_010,
        "sid": "sid-1"}
    item = records.to_item(FIELDS, SESSION._replace(sid="", id_token="")._asdict())
    assert "sid" not in item and "id_token" not in item
