"""federation.oidc.logout: the upstream end-session URL (RP-Initiated Logout 1.0 2) and back-channel logout tokens
(Back-Channel Logout 1.0 2.4, 2.6), each rule's refusal."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.discovery import discover
from authgate.federation.oidc.logout import UpstreamLogout, end_session_url, verify_logout_token
from tests.upstream_oidc import CLIENT_ID, ScriptedProvider

pytestmark = pytest.mark.usefixtures("aws")


def verify(op: ScriptedProvider, token: str) -> UpstreamLogout:
    idp = op.idp()
    return verify_logout_token(idp, discover(idp), token, now=int(time.time()))


def refusal(op: ScriptedProvider, token: str) -> tuple[str, str]:
    with pytest.raises(UpstreamRefused) as caught:
        verify(op, token)
    return caught.value.reason, caught.value.internal


def test_the_end_session_url_carries_the_hint_the_return_and_the_client(op: ScriptedProvider) -> None:
    idp = op.idp()
    url = end_session_url(idp, discover(idp), id_token_hint="the.id.token",
                          post_logout_redirect_uri="http://127.0.0.1:3000/oauth/logout/done", state="st")
    assert url is not None and url.startswith(f"{op.issuer}/logout?")
    assert dict(parse_qsl(urlsplit(url).query)) == {
        "id_token_hint": "the.id.token", "post_logout_redirect_uri": "http://127.0.0.1:3000/oauth/logout/done",
        "state": "st", "client_id": CLIENT_ID}
    assert end_session_url(idp, discover(idp)._replace(end_session_endpoint="")) is None


def test_a_logout_token_names_whose_session_ended_and_is_spent(op: ScriptedProvider) -> None:
    token = op.logout_token()
    assert verify(op, token) == UpstreamLogout(op.issuer, "carol-upstream-1", "upstream-session-1")
    assert refusal(op, token)[0] == "logout_token_replayed"
    assert verify(op, op.logout_token(sub=None)) == UpstreamLogout(op.issuer, "", "upstream-session-1")
    assert verify(op, op.logout_token(header={"typ": None}, sid=None)).subject == "carol-upstream-1"


@pytest.mark.parametrize(("header", "claims", "reason"), [
    ({}, {"nonce": "n"}, "logout_token_malformed"),
    ({}, {"events": {"http://schemas.openid.net/event/backchannel-logout": "yes"}}, "logout_token_malformed"),
    ({}, {"events": None}, "logout_token_malformed"),
    ({}, {"sub": None, "sid": None}, "logout_token_malformed"),
    ({}, {"jti": None}, "logout_token_malformed"),
    ({}, {"jti": ""}, "logout_token_malformed"),
    ({}, {"jti": "j" * 256}, "logout_token_malformed"),
    ({}, {"iat": None}, "logout_token_malformed"),
    ({}, {"iat": int(time.time()) + 3600, "exp": int(time.time()) + 3700}, "logout_token_time_invalid"),
    ({}, {"sub": 7}, "logout_token_malformed"),
    ({"typ": "JWT"}, {}, "logout_token_type_invalid"),
    ({}, {"aud": "another-client"}, "logout_token_audience_invalid"),
    ({}, {"iss": "https://another.example"}, "logout_token_issuer_invalid"),
    ({}, {"exp": 1_000_000_000, "iat": 999_999_000}, "logout_token_expired"),
])
def test_each_rule_of_2_6_refuses(op: ScriptedProvider, header: dict[str, Any], claims: dict[str, Any],
                                  reason: str) -> None:
    assert refusal(op, op.logout_token(header=header, **claims))[0] == reason
