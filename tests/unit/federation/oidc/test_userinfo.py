"""federation.oidc.userinfo: UserInfo only when a mapped claim is missing, its sub the ID token's (Core 5.3)."""

from __future__ import annotations

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.discovery import discover
from authgate.federation.oidc.userinfo import completed, needed
from authgate.identity_providers.model import IdentityProvider
from tests.document_server import DocumentServer
from tests.upstream_oidc import ACCESS_TOKEN, ScriptedProvider

IDP = IdentityProvider("demo", "https://idp.example", protocol="oidc", client_id="authgate")


def test_userinfo_is_needed_only_for_a_missing_mapped_claim() -> None:
    assert not needed(IDP, {"sub": "s", "email": "e", "name": "n"})
    assert needed(IDP, {"sub": "s", "email": "e"})
    # Groups count only when the record maps them.
    assert not needed(IDP, {"sub": "s", "email": "e", "name": "n"})
    assert needed(IDP._replace(claims=(("groups", "roles"),)), {"sub": "s", "email": "e", "name": "n"})


def test_userinfo_completes_the_id_token(op: ScriptedProvider, trusted: DocumentServer) -> None:
    op.answer_userinfo(sub="carol-upstream-1", name="Carol From UserInfo", email="other@democorp.example")
    idp = op.idp()
    said = completed(idp, discover(idp), {"sub": "carol-upstream-1", "email": "carol@democorp.example"}, ACCESS_TOKEN)
    assert said == {"sub": "carol-upstream-1", "email": "carol@democorp.example", "name": "Carol From UserInfo"}
    assert trusted.requests[-1][0] == "/idp-a/userinfo"
    trusted.requests.clear()
    full = {"sub": "carol-upstream-1", "email": "e", "name": "n"}
    assert completed(idp, discover(idp), full, ACCESS_TOKEN) == full
    assert trusted.requests == []


def test_userinfo_about_someone_else_is_refused(op: ScriptedProvider) -> None:
    """Core 5.3.4: a UserInfo sub other than the ID token's."""
    op.answer_userinfo(sub="mallory", name="Mallory")
    idp = op.idp()
    with pytest.raises(UpstreamRefused) as caught:
        completed(idp, discover(idp), {"sub": "carol-upstream-1"}, ACCESS_TOKEN)
    assert (caught.value.reason, caught.value.internal) == (
        "userinfo_subject_mismatch", "UserInfo's sub is not the ID token's (Core 5.3.4)")
