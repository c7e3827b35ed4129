"""grants.revoke: a grant's access tokens (until the last could expire) and its refresh family, at once."""

from __future__ import annotations

import json

from authgate.grants.revoke import revoke_grant
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.revocations import RevocationStore
from tests.log_hygiene import LogCapture

NOW = 1_750_000_000


def test_every_token_of_the_grant_is_revoked_until_the_last_access_token_expires(aws: None) -> None:
    RefreshTokenStore().start_family(family_id="g1", client_id="web", tenant_id="demo", subject="alice", scope="",
                                     now=NOW, ttl=3600)
    with LogCapture() as capture:
        revoke_grant("g1", NOW, "authorization code replayed")
    horizon = NOW + 900 + 120  # access_token_ttl + leeway (the defaults)
    store = RevocationStore()
    assert store.is_revoked("any-jti", "g1", horizon - 1) and not store.is_revoked("any-jti", "g1", horizon)
    assert not store.is_revoked("any-jti", "g2", NOW)
    assert not RefreshTokenStore().family_active("g1")
    (line,) = [json.loads(x) for x in capture.lines if "grant revoked" in x]
    assert (line["level"], line["grant_id"], line["reason"]) == ("WARNING", "g1", "authorization code replayed")
