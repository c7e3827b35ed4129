"""The code of an openid grant, as the authorization endpoint stores it after alice's sign-in (OIDC Core 3.1.3)."""

from __future__ import annotations

from authgate.single_use.authentication import Authentication
from tests.demo import CHALLENGE, WEB_REDIRECT

ALICE = "usr_demoalice0000000000000"
SIGNED_IN_AT = 1_749_999_000
OIDC_SCOPE = "openid profile email charges:read"


def openid_code(*, scope: str = OIDC_SCOPE, nonce: str | None = "n-0S6_WzA2Mj", client_id: str = "demo-web",
                redirect_uri: str = WEB_REDIRECT) -> str:
    """A code of alice's openid grant, as the authorization endpoint stores it after her sign-in."""
    from authgate.stores.codes import CodeStore

    return CodeStore().create(client_id=client_id, tenant_id="demo", redirect_uri=redirect_uri,
                              code_challenge=CHALLENGE, code_challenge_method="S256", scope=scope, subject="alice",
                              nonce=nonce, authentication=Authentication(user_id=ALICE, auth_time=SIGNED_IN_AT))
