"""console.idp_given: what a posted identity provider form gives, read as `authgate idps create|update` reads its flags
and files; each refusal names the form's field where the command names a file."""

from __future__ import annotations

import pytest

from authgate.administration.identity_providers import Given
from authgate.console.idp_given import created_given, secrets, updated_given
from authgate.identity_providers.model import IdentityProvider
from authgate.operators.input import InvalidInput


def test_an_openid_provider_s_create_form_gives_what_the_command_s_flags_give() -> None:
    fields = {"issuer": " https://idp.example ", "idp_id": "corp", "label": "Corp", "domains": "corp.example, a.example",
              "client_id": "c1", "scopes": "", "trust_email": "yes", "trust_mfa": "mfa otp", "claims": "",
              "jwks_uri": "https://idp.example/keys", "metadata": "ignored unless SAML"}
    assert created_given(fields, "oidc") == Given(
        issuer="https://idp.example", protocol="oidc", idp_id="corp", label="Corp",
        domains=["corp.example", "a.example"], client_id="c1", trust_email=True, trust_mfa=["mfa", "otp"],
        keys={"jwks_uri": "https://idp.example/keys", "jwks": ()})


def test_a_preset_names_no_issuer_and_an_id_jag_issuer_no_protocol() -> None:
    assert created_given({"issuer": "https://ignored.example", "client_id": "g"}, "google") == Given(
        preset="google", protocol="oidc", client_id="g")
    assert created_given({"issuer": "https://jag.example", "user_match": "email"}, "idjag") == Given(
        issuer="https://jag.example", user_match="email")


def test_keys_by_url_and_pasted_at_once_are_refused_as_the_command_refuses_both_files() -> None:
    with pytest.raises(InvalidInput):
        created_given({"issuer": "https://jag.example", "jwks_uri": "https://jag.example/k", "jwks": "{}"}, "idjag")


def test_a_change_sets_every_field_the_form_shows_and_names_only_another_protocol() -> None:
    oidc = IdentityProvider("acme", "https://idp.example", protocol="oidc", client_id="c0", idp_id="corp")
    fields = {"protocol": "oidc", "label": "", "idp_id": "corp", "domains": "", "client_id": "c1", "scopes": "openid",
              "step_up": "local", "trust_mfa": ""}
    assert updated_given(fields, oidc) == Given(
        idp_id="corp", no_domains=True, client_id="c1", scopes="openid", create_users=False, trust_email=False,
        trust_mfa=[], step_up="local")
    saml = oidc._replace(protocol="saml", client_id="")
    made_oidc = updated_given({**fields, "relink_by_email": "yes"}, saml)
    assert (made_oidc.protocol, made_oidc.client_id, made_oidc.relink_by_email) == ("oidc", "c1", True)
    assert updated_given({**fields, "protocol": "saml"}, saml).client_id is None


def test_an_id_jag_issuer_s_change_keeps_to_what_its_form_shows() -> None:
    jag = IdentityProvider("acme", "https://jag.example", jwks_uri="https://jag.example/k")
    assert updated_given({"label": "JAG", "domains": "", "client_id": "", "trust_email": "yes"}, jag) == Given(
        label="JAG", create_users=False)


def test_secrets_are_read_as_their_files_and_an_empty_field_gives_none() -> None:
    assert secrets({"client_secret": "s3cret\n", "apple_private_key": "  "}) == {"client_secret": "s3cret"}
    assert secrets({"client_secret": ""}) == {}
    with pytest.raises(InvalidInput) as refused:
        secrets({"client_secret": "two\nlines"})
    assert str(refused.value) == "the client secret must hold the secret alone, on one line"
