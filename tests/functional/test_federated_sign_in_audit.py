"""The audit trail of a sign-in through a tenant's identity provider (docs/audit.md): the person provisioned and
linked, signed in by the IdP (`details.method` identity_provider, `details.idp`), linked after proving their
account, refused with the reason, and an IdP's answer refused at the callback."""

from __future__ import annotations

from typing import Any

import pytest

from tests.demo import ALICE_ID
from tests.functional.authorize_support import Browser, page_of
from tests.functional.person_events_support import Events, by_person, trail
from tests.functional.upstream_support import (
    answer,
    back_to_flow,
    choose,
    offer,
    oidc_answer,
    post,
    sign_in_page,
)
from tests.upstream_oidc import ScriptedProvider


def of(events: Events, *actions: str) -> list[dict[str, Any]]:
    return [e for e in trail(events) if e["action"] in actions]


def test_a_provisioned_person_is_created_linked_and_signed_in(browser: Browser, provider: ScriptedProvider,
                                                              audit_events: Events) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore

    offer(provider, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    assert back_to_flow(browser, answer(browser, oidc_answer(provider, query)))["statusCode"] == 303
    link = LinkedIdentityStore().get("demo", provider.issuer, "carol-upstream-1")
    assert link is not None
    created, linked, signed = of(audit_events, "user.created", "identity.linked", "signin.succeeded")
    assert created == by_person("user.created", link.user_id, link.username, by="identity_provider", idp="idp-a",
                                client_id="demo-web")
    assert linked == by_person("identity.linked", link.user_id, link.username, idp="idp-a", issuer=provider.issuer,
                               by="provisioning")
    assert signed == by_person("signin.succeeded", link.user_id, link.username, method="identity_provider",
                               acr="password", amr=["fed"], client_id="demo-web", idp="idp-a")


@pytest.mark.slow
def test_a_link_after_the_accounts_password_is_recorded(browser: Browser, provider: ScriptedProvider,
                                                        audit_events: Events) -> None:
    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    page = page_of(back_to_flow(browser, answer(browser, oidc_answer(provider, query, email="alice@demo.example",
                                                                     sub="alice-at-idp-a"))))
    assert post(browser, [*page.hidden().items(), ("username", "alice"),
                          ("password", "alice-password")])["statusCode"] == 303
    linked, signed = of(audit_events, "identity.linked", "signin.succeeded")
    assert linked == by_person("identity.linked", ALICE_ID, "alice", idp="idp-a", issuer=provider.issuer, by="proof")
    assert signed == by_person("signin.succeeded", ALICE_ID, "alice", method="identity_provider", acr="password",
                               amr=["fed"], client_id="demo-web", idp="idp-a")


def test_nobody_to_sign_in_is_a_failure_with_its_reason(browser: Browser, provider: ScriptedProvider,
                                                        audit_events: Events) -> None:
    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    back_to_flow(browser, answer(browser, oidc_answer(provider, query, email="nobody@elsewhere.example")))
    assert of(audit_events, "signin.failed", "signin.succeeded", "identity.linked", "user.created") == [
        by_person("signin.failed", "unknown", None, "failure", "not_provisioned", method="identity_provider",
                  client_id="demo-web", idp="idp-a")]


def test_an_answer_refused_at_the_callback_is_a_failure_with_its_check(browser: Browser, provider: ScriptedProvider,
                                                                      audit_events: Events) -> None:
    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    answer(Browser(browser.invoke), oidc_answer(provider, query))  # another browser
    answer(browser, {"state": "z" * 43, "code": "c"})  # a sign-in nobody started
    another, unknown = of(audit_events, "signin.failed")
    assert another == by_person("signin.failed", "unknown", None, "failure", "another_browser",
                                method="identity_provider", idp="idp-a")
    assert unknown == {**by_person("signin.failed", "unknown", None, "failure", "pending_invalid",
                                   method="identity_provider"), "tenant": ""}
