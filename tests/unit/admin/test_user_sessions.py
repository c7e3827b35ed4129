"""admin.user_sessions against moto: `authgate users sessions` and `authgate users revoke-sessions`."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from authgate.clock import ManualClock

ALICE = "usr_0123456789abcdefghijkl"


def ns(**kwargs: object) -> argparse.Namespace:
    base: dict[str, object] = {"tenant": "demo", "username": "alice", "json": True}
    base.update(kwargs)
    return argparse.Namespace(**base)


@pytest.fixture
def alice(aws: None, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("demo", "alice", "scrypt$not-a-real-hash", user_id=ALICE)


def open_session(client: str | None = None) -> str:
    from authgate.stores.sessions import SessionStore

    store = SessionStore()
    _, session = store.create(tenant_id="demo", user_id=ALICE, username="alice", acr="password", amr=("pwd",),
                              generation=0)
    if client:
        store.used_by(session, client)
    return session.sid


@pytest.mark.usefixtures("alice")
def test_sessions_lists_the_live_sessions_of_the_user(clock: ManualClock) -> None:
    from authgate_cli.admin.user_sessions import list_sessions

    first, second = open_session("demo-web"), open_session()
    out = io.StringIO()
    assert list_sessions(ns(), out) == 0
    now = int(clock())
    # Both opened in the same second: their order is the index's, so compare by sid.
    assert sorted(json.loads(out.getvalue()), key=lambda s: s["sid"]) == sorted((
        {"sid": sid, "auth_time": now, "acr": "password", "amr": ["pwd"], "created_at": now, "last_active": now,
         "expires_at": now + 12 * 3600, "clients": clients} for sid, clients in ((first, ["demo-web"]),
                                                                                 (second, []))), key=lambda s: s["sid"])


@pytest.mark.usefixtures("alice")
def test_sessions_in_text_print_their_times_in_iso_8601(clock: ManualClock) -> None:
    from authgate_cli.admin.user_sessions import list_sessions

    sid = open_session("demo-web")
    clock.advance(60)
    out = io.StringIO()
    assert list_sessions(ns(json=False), out) == 0
    # The clock fixture's START, 1_750_000_000, is 2025-06-15T15:06:40Z.
    assert out.getvalue() == (f"{sid}  signed in 2025-06-15T15:06:40Z (password, pwd)  last active "
                              "2025-06-15T15:06:40Z  clients demo-web\n")


@pytest.mark.usefixtures("alice")
@pytest.mark.parametrize(("opened", "said"), [(1, "1 session"), (2, "2 sessions"), (0, "0 sessions")])
def test_revoke_sessions_counts_them_in_words_that_agree(opened: int, said: str) -> None:
    from authgate_cli.admin.user_sessions import revoke_sessions

    for _ in range(opened):
        open_session()
    out = io.StringIO()
    assert revoke_sessions(ns(json=False), out) == 0
    assert out.getvalue() == f"{said} of alice in tenant demo ended\n"


@pytest.mark.usefixtures("alice")
def test_revoke_sessions_ends_them_all_and_signs_the_user_out_everywhere(clock: ManualClock) -> None:
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore
    from authgate_cli.admin.user_sessions import list_sessions, revoke_sessions

    open_session(), open_session()
    out = io.StringIO()
    assert revoke_sessions(ns(), out) == 0
    now = int(clock())
    assert json.loads(out.getvalue()) == {"tenant": "demo", "username": "alice", "sessions_ended": 2,
                                          "sessions_valid_after": now}
    assert SessionStore().of_user("demo", ALICE) == []
    user = UserStore().get("demo", "alice")
    assert user is not None and user.sessions_valid_after == now
    listing = io.StringIO()
    assert list_sessions(ns(json=False), listing) == 0
    assert listing.getvalue() == "no session of alice in tenant demo\n"


@pytest.mark.usefixtures("alice")
@pytest.mark.parametrize("action", ["list_sessions", "revoke_sessions"])
def test_an_unknown_user_is_one_line_and_exit_2(action: str, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin import user_sessions

    assert getattr(user_sessions, action)(ns(username="nobody"), io.StringIO()) == 2
    assert capsys.readouterr().err == ("authgate users: no user 'nobody' in tenant 'demo' "
                                       "(see `authgate users list --tenant demo`)\n")


def queued() -> list[dict[str, object]]:
    from authgate import aws
    from authgate.settings import get_settings

    answer = aws.sqs().receive_message(QueueUrl=get_settings().deliveries_queue, MaxNumberOfMessages=10,
                                       VisibilityTimeout=0)
    return [json.loads(m["Body"]) for m in answer.get("Messages") or []]


@pytest.mark.usefixtures("alice")
def test_ending_sessions_queues_a_logout_token_for_each_client_that_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenID Connect Back-Channel Logout 1.0 2.5 (authgate.deliveries): revoke-sessions and disable tell the
    clients of the sessions that counted until then."""
    from authgate import caches
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.user_actions import enable_user
    from authgate_cli.admin.user_sessions import revoke_sessions

    monkeypatch.setenv("AUTHGATE_ISSUER", "https://issuer.example")
    caches.reset()
    ClientStore().create(client_id="web", tenant_id="demo", client_type="public", redirect_uris=("https://a/cb",),
                         grant_types=("authorization_code",), backchannel_logout_uri="https://a/bcl")
    ClientStore().create(client_id="quiet", tenant_id="demo", client_type="public", redirect_uris=("https://a/cb",),
                         grant_types=("authorization_code",))
    sid = open_session("web")
    open_session("quiet")
    assert revoke_sessions(ns(), io.StringIO()) == 0
    (message,) = queued()
    assert {k: v for k, v in message.items() if k != "jti"} == {
        "kind": "backchannel_logout", "issuer": "https://issuer.example", "client_id": "web",
        "uri": "https://a/bcl", "sub": ALICE, "sid": sid, "alg": "RS256"}
    assert revoke_sessions(ns(), io.StringIO()) == 0
    assert len(queued()) == 1  # nothing more: no session counted any more
    assert enable_user(ns(), io.StringIO()) == 0
