"""people.consents: a person's consent for a client withdrawn and its grants revoked, for `authgate users` and the
console alike; what is not there is a LookupError saying what."""

from __future__ import annotations

import pytest


@pytest.mark.usefixtures("demo")
def test_a_consent_is_withdrawn_once_and_what_is_not_there_says_what() -> None:
    from authgate.people.consents import NoConsent, UnknownClient, withdraw_consent
    from authgate.stores.consents import ConsentStore
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound

    UserStore().put_hash("demo", "dana", "hash", overwrite=False, user_id="usr_dana")  # demo's clients, not its bob
    ConsentStore().remember("demo", "usr_dana", "demo-web", ("openid",), None)
    with pytest.raises(UnknownClient, match="^no client 'nosuch'$"):
        withdraw_consent("demo", "dana", "nosuch")
    with pytest.raises(UserNotFound):
        withdraw_consent("demo", "nobody", "demo-web")
    done = withdraw_consent("demo", "dana", "demo-web")
    assert (done.said, done.figures) == (
        "consent of dana in tenant demo for client demo-web withdrawn; 0 grants revoked",
        {"tenant_id": "demo", "username": "dana", "client_id": "demo-web", "grants_revoked": 0})
    with pytest.raises(NoConsent) as none:
        withdraw_consent("demo", "dana", "demo-web")
    assert str(none.value) == "user 'dana' of tenant 'demo' has not allowed client 'demo-web'"


def test_a_client_id_is_checked_before_anything_is_read(aws: None) -> None:
    from authgate.operators.input import InvalidInput
    from authgate.people.consents import withdraw_consent

    for client_id, said in (("", "--client must not be empty"),
                            ("a b", "--client 'a b' must be printable ASCII without spaces or control characters")):
        with pytest.raises(InvalidInput) as refused:
            withdraw_consent("demo", "nobody", client_id)  # not "no user": the id is checked first
        assert str(refused.value) == said
