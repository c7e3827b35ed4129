"""A SAML IdP made an OpenID Provider (`authgate idps update --protocol oidc ... --trust-email --relink-by-email`,
docs/federation.md "Changing an IdP's protocol"): the person linked by their SAML NameID signs in through the OpenID
Provider as the same user, with the same `sub` in authgate's tokens, linked again by their verified email.

The provider is scripted on a real HTTPS server (tests/upstream_oidc.py); authgate runs in-process on moto, and the
change is the command's own action on the same stack.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.demo import ALICE_ID
from tests.functional.authorize_support import Browser, page_of
from tests.functional.token_support import claims_of
from tests.functional.upstream_support import (
    answer,
    back_to_flow,
    choose,
    oidc_answer,
    sign_in_page,
    tokens_of,
)
from tests.upstream_oidc import CLIENT_ID, CLIENT_SECRET, ScriptedProvider

SAML_SUBJECT = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent|alice-at-saml"


def saml_idp_with_alice_linked(provider: ScriptedProvider) -> Any:
    """Tenant demo's SAML IdP whose entityID is the provider's issuer (id idp-a), and alice linked to it by her NameID
    (as her SAML sign-ins linked her)."""
    from authgate import caches
    from authgate.administration.identity_providers import Given, create
    from authgate.administration.saml_metadata import given
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity
    from tests.saml_support import metadata

    idp = create("demo", Given(idp_id="idp-a", label="IDP-A SSO",
                               saml=given(metadata(entity_id=provider.issuer), "the metadata XML")), {})
    alice = UserStore().get("demo", "alice")
    assert alice is not None and alice.user_id == ALICE_ID and alice.email_verified
    LinkedIdentityStore().link(LinkedIdentity("demo", provider.issuer, SAML_SUBJECT, ALICE_ID, "alice", 1, "proof"))
    caches.reset()
    return idp


def change(provider: ScriptedProvider, tmp_path: Path, *flags: str) -> tuple[int, str]:
    """`authgate idps update --tenant demo --issuer <provider> --protocol oidc --client-id ... FLAGS` on this stack."""
    import contextlib
    import io

    from authgate import caches
    from authgate_cli.admin import idps
    from authgate_cli.main import build_parser

    secret = tmp_path / "secret"
    secret.write_text(CLIENT_SECRET + "\n")
    args = build_parser(["idps"]).parse_args([
        "idps", "update", "--tenant", "demo", "--issuer", provider.issuer, "--protocol", "oidc", "--client-id",
        CLIENT_ID, "--client-secret-file", str(secret), *flags])
    idps._validate(args)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = idps.ACTIONS["update"](args, io.StringIO())
    caches.reset()
    return status, err.getvalue()


@pytest.mark.slow  # over 0.5 s (a sign-in through the provider, then a token request)
def test_alice_signs_in_through_the_openid_provider_as_herself_after_the_change(
        browser: Browser, provider: ScriptedProvider, invoke: Any, tmp_path: Path) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore

    saml_idp_with_alice_linked(provider)
    assert change(provider, tmp_path) == (1, (
        f"authgate idps: {provider.issuer} has 1 linked identity, each named by a SAML NameID, which an OpenID Connect "
        "sub does not match: give --relink-by-email (with --trust-email) to remove them and link each person again by "
        "their verified email at their next sign-in\n"))
    assert change(provider, tmp_path, "--trust-email", "--relink-by-email") == (0, "")
    assert LinkedIdentityStore().of_issuer("demo", provider.issuer) == ()

    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    assert query["client_id"] == CLIENT_ID  # an OpenID Connect authorization request now
    result = back_to_flow(browser, answer(browser, oidc_answer(provider, query, sub="alice-at-oidc",
                                                               email="alice@demo.example", email_verified=True)))
    assert claims_of(tokens_of(invoke, result)["access_token"])["sub"] == ALICE_ID
    link = LinkedIdentityStore().get("demo", provider.issuer, "alice-at-oidc")
    assert link is not None and (link.user_id, link.via) == (ALICE_ID, "verified_email")


def test_a_person_whose_email_the_idp_does_not_verify_proves_the_account_instead(
        browser: Browser, provider: ScriptedProvider, tmp_path: Path) -> None:
    saml_idp_with_alice_linked(provider)
    assert change(provider, tmp_path, "--trust-email", "--relink-by-email") == (0, "")
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    page = page_of(back_to_flow(browser, answer(browser, oidc_answer(provider, query, sub="alice-at-oidc",
                                                                     email="alice@demo.example",
                                                                     email_verified=False))))
    assert page.text().startswith("Link your account"), page.text()
