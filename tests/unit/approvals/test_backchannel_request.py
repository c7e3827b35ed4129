"""approvals.backchannel_request: a CIBA request's record (CIBA Core 7.1, 10, 11) and the keys it is stored under."""

from __future__ import annotations

import hashlib

from authgate.approvals.backchannel_request import (
    GRANT_TYPE,
    BackchannelRequest,
    from_item,
    key_of,
    link_key_of,
    to_item,
)

REQUEST = BackchannelRequest(key=key_of("req-1"), client_id="demo-partner", tenant_id="demo", user_id="usr_b",
                             username="bob", scope="openid charges:write", binding_message="", state="pending",
                             issued_at=100, expires_at=400, interval=5)


def test_only_a_hash_of_the_identifier_or_the_link_is_a_key() -> None:
    assert key_of("req-1") == "ciba#" + hashlib.sha256(b"req-1").hexdigest()
    assert link_key_of("secret-link") == "ciba-link#" + hashlib.sha256(b"secret-link").hexdigest()
    assert "req-1" not in key_of("req-1") and key_of("req-1") != key_of("req-2")
    assert GRANT_TYPE == "urn:openid:params:grant-type:ciba"


def test_a_pending_request_is_stored_without_what_only_an_approval_sets() -> None:
    item = to_item(REQUEST)
    assert item == {
        "code_hash": {"S": REQUEST.key}, "client_id": {"S": "demo-partner"}, "tenant_id": {"S": "demo"},
        "user_id": {"S": "usr_b"}, "username": {"S": "bob"}, "scope": {"S": "openid charges:write"},
        "state": {"S": "pending"}, "issued_at": {"N": "100"}, "expires_at": {"N": "400"}, "interval": {"N": "5"},
        "next_poll_at": {"N": "0"}, "grant_id": {"S": ""}}
    assert from_item(item) == REQUEST


def test_an_approved_request_reads_back_as_it_was_written() -> None:
    approved = REQUEST._replace(state="approved", binding_message="Order 42", resource="https://api.example/",
                                grant_id="grt_1", auth_time=150, acr="mfa", amr=("pwd", "otp", "mfa"),
                                generation=3, authorization_details='[{"type":"charge"}]', next_poll_at=110)
    assert from_item(to_item(approved)) == approved
