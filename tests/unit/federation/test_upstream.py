"""federation.upstream: the value every protocol returns for the person an IdP vouches for."""

from __future__ import annotations

from authgate.federation.upstream import UpstreamIdentity


def test_an_upstream_identity_is_its_tenant_issuer_and_subject_and_claims_nothing_else_unless_given() -> None:
    upstream = UpstreamIdentity("demo", "https://idp.example", "248289761001")

    assert upstream._asdict() == {
        "tenant_id": "demo", "issuer": "https://idp.example", "subject": "248289761001", "email": "",
        "email_verified": False, "name": "", "groups": (), "acr": "", "amr": (), "auth_time": 0,
        "session_id": "", "id_token": ""}


def test_an_upstream_identity_keeps_the_upstream_session_for_logout() -> None:
    upstream = UpstreamIdentity("demo", "https://idp.example", "248289761001", session_id="08a5019c-17e1")

    assert (upstream.session_id, upstream.subject) == ("08a5019c-17e1", "248289761001")
