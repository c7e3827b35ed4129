"""The code of an openid grant, as the authorization endpoint stores it after alice's sign-in (OIDC Core 3.1.3), and
an ID token this issuer signed, as a client sends it back as id_token_hint (3.1.2.1)."""

from __future__ import annotations

from authgate.clock import ManualClock
from authgate.single_use.authentication import Authentication
from tests.demo import CHALLENGE, ISSUER, WEB_REDIRECT

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


def id_token_of(user_id: str, *, expired: bool = False, issuer: str = ISSUER) -> str:
    """An ID token `issuer` signed for demo-web about `user_id` (expired: issued two hours ago)."""
    from authgate import clock
    from authgate.oauth.token.id_token import issue_id_token

    now = clock.seconds()
    if expired:
        with clock.using(ManualClock(now - 7200)):
            return issue_id_token(issuer=issuer, client_id="demo-web", access_token="at",
                                  authentication=Authentication(user_id=user_id, auth_time=now - 7200))
    return issue_id_token(issuer=issuer, client_id="demo-web", access_token="at",
                          authentication=Authentication(user_id=user_id, auth_time=now))
