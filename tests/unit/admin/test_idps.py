"""authgate_cli.admin.idps: what `authgate idps` accepts, before any stack is looked up."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from authgate_cli.admin import idps
from authgate_cli.admin.arguments import InvalidInput
from tests.idp_support import TestIdp


def test_issuers() -> None:
    assert idps.issuer("https://acme.okta.example") == "https://acme.okta.example"
    for bad, message in [("http://idp.example", "must be an https URL"), ("https://idp.example/?x=1", "without query"),
                         ("https://u@idp.example", "user information"), ("idp", "is not an absolute URI")]:
        with pytest.raises(InvalidInput, match=message):
            idps.issuer(bad)


def test_jwks_uris_are_what_the_fetcher_fetches() -> None:
    assert idps.jwks_uri("https://idp.example/keys") == "https://idp.example/keys"
    for bad, message in [("http://idp.example/keys", "it must start with https://"),
                         ("https://idp.example", "it must have a path")]:
        with pytest.raises(InvalidInput, match=message):
            idps.jwks_uri(bad)


def test_jwks_files(tmp_path: Path) -> None:
    public = tmp_path / "jwks.json"
    public.write_text(json.dumps(TestIdp("https://idp.example").jwks()))
    assert idps.jwks_file(str(public))[0]["kid"] == "idp-key-1"
    private = tmp_path / "private.json"
    private.write_text(json.dumps({"keys": [dict(TestIdp("https://idp.example").key.as_dict(private=True))]}))
    with pytest.raises(InvalidInput, match="holds the private member 'd'"):
        idps.jwks_file(str(private))
    with pytest.raises(InvalidInput, match="cannot be read"):
        idps.jwks_file(str(tmp_path / "missing.json"))


# -- the actions against moto, each command line parsed by the `authgate` parser itself --

SECRET = "upstream-client-secret-from-a-file"


def parsed(*argv: str) -> argparse.Namespace:
    from authgate_cli.main import build_parser

    return build_parser(["idps"]).parse_args(["idps", *argv, "--json"])


def act(*argv: str) -> tuple[int, dict[str, Any] | str]:
    """`authgate idps ARGV --json`'s action on the current stack (moto): its status and what it printed."""
    from authgate_cli.admin.idps import ACTIONS, _validate

    args = parsed(*argv)
    try:
        _validate(args)
    except InvalidInput as exc:
        return 2, str(exc)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = ACTIONS[args.idps_command](args, out)
    return status, json.loads(out.getvalue()) if status == 0 else err.getvalue().removeprefix("authgate idps: ").strip()


@pytest.fixture
def secret_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    path = tmp_path / "secret"
    path.write_text(SECRET + "\n")
    return str(path)


def test_an_oidc_idp_is_created_with_its_secret_sealed_and_never_shown(
        aws: None, secret_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.federation import secrets
    from authgate.stores.identity_providers import IdentityProviderStore

    status, view = act("create", "--tenant", "demo", "--issuer", "https://sso.acme.example", "--protocol", "oidc",
                       "--client-id", "authgate", "--client-secret-file", secret_file, "--label", "Acme SSO",
                       "--domain", "Acme.example", "--domain", "acme.test", "--trust-mfa", "mfa", "--claim",
                       "groups=roles")
    assert status == 0
    assert view == {
        "tenant_id": "demo", "issuer": "https://sso.acme.example", "jwks_uri": None, "jwks": None, "user_match": "sub",
        "create_users": False, "created_at": view["created_at"], "idp_id": "acme-sso", "protocol": "oidc",
        "label": "Acme SSO", "domains": ["acme.example", "acme.test"], "sign_in": True, "client_id": "authgate",
        "scopes": "", "preset": "", "apple_team_id": "", "apple_key_id": "", "saml": None, "trust_email": False,
        "trust_mfa": True, "mfa_values": ["mfa"], "step_up": "local", "claims": {"groups": "roles"},
        "client_secret_set": True, "apple_private_key_set": False,
        "redirect_uri": "http://127.0.0.1:3000/oauth/federation/callback",
        "post_logout_redirect_uri": "http://127.0.0.1:3000/oauth/federation/logged-out",
        "backchannel_logout_uri": "http://127.0.0.1:3000/oauth/federation/demo/acme-sso/backchannel-logout"}
    stored = IdentityProviderStore().get("demo", "https://sso.acme.example")
    assert stored is not None and stored.client_secret.startswith("v1.") and SECRET not in stored.client_secret
    assert secrets.unseal(stored, "client_secret") == SECRET
    assert SECRET not in capsys.readouterr().out


def test_the_google_preset_fills_the_issuer_and_checks_the_workspace_domain(aws: None, secret_file: str) -> None:
    status, view = act("create", "--tenant", "demo", "--preset", "google", "--client-id", "123.apps.googleusercontent",
                       "--client-secret-file", secret_file, "--domain", "acme.example")
    assert status == 0 and isinstance(view, dict)
    assert {k: view[k] for k in ("issuer", "idp_id", "protocol", "preset", "label", "scopes", "claims")} == {
        "issuer": "https://accounts.google.com", "idp_id": "google", "protocol": "oidc", "preset": "google",
        "label": "Google", "scopes": "openid email profile", "claims": {"email": "email", "name": "name"}}


def test_the_apple_preset_takes_its_key_instead_of_a_secret(aws: None, secret_file: str, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    p8 = tmp_path / "AuthKey_KEY1234567.p8"
    p8.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    apple = ("create", "--tenant", "demo", "--preset", "apple", "--client-id", "com.acme.signin")
    assert act(*apple) == (2, ("--preset apple needs --apple-team-id, --apple-key-id and --apple-private-key-file "
                              "(instead of a client secret)"))
    keys = ("--apple-team-id", "TEAM123456", "--apple-key-id", "KEY1234567", "--apple-private-key-file", str(p8))
    assert act(*apple, *keys, "--client-secret-file", secret_file) == (
        2, "--preset apple signs its own client secret: leave --client-secret-file out")
    assert act(*apple, "--apple-team-id", "team", "--apple-key-id", "KEY1234567", "--apple-private-key-file",
               str(p8)) == (2, "--apple-team-id 'team' must be Apple's ten letters and digits (e.g. ABCDE12345)")
    assert act(*apple[:-2], "--client-id", "x", *keys[:-1], secret_file) == (
        2, (f"--apple-private-key-file {secret_file!r} is not the EC P-256 private key (.p8) Apple issued for Sign in "
           "with Apple"))
    status, view = act(*apple, *keys)
    assert status == 0 and isinstance(view, dict)
    assert {k: view[k] for k in ("issuer", "scopes", "apple_team_id", "apple_private_key_set", "client_secret_set")} \
        == {"issuer": "https://appleid.apple.com", "scopes": "openid email name", "apple_team_id": "TEAM123456",
            "apple_private_key_set": True, "client_secret_set": False}


@pytest.mark.parametrize(("argv", "line"), [
    (("--issuer", "https://x.example", "--protocol", "oidc"),
     "--protocol oidc needs --client-id (the client the IdP registered for authgate)"),
    (("--issuer", "https://x.example", "--client-id", "c"),
     "--protocol oidc needs --client-secret-file FILE (the client secret the IdP issued)"),
    (("--issuer", "https://x.example", "--scopes", "openid", "--jwks-uri", "https://x.example/k"),
     "--scopes is for sign-in: give --protocol oidc too"),
    (("--issuer", "https://x.example", "--protocol", "oidc", "--client-id", "c", "--scopes", "email profile"),
     "--scopes 'email profile' must include openid (OpenID Connect Core 3.1.2.1)"),
    (("--issuer", "https://x.example", "--protocol", "saml"),
     "--protocol saml needs --metadata-url URL or --metadata-file FILE (the IdP's SAML metadata)"),
    (("--preset", "google", "--issuer", "https://x.example"),
     "--preset google is the issuer https://accounts.google.com: leave --issuer out"),
    (("--protocol", "oidc",), "create needs --issuer URL (or --preset google|apple)"),
    (("--issuer", "https://x.example", "--id", "Acme SSO", "--jwks-uri", "https://x.example/k"),
     "--id 'Acme SSO' must be 1 to 32 lower-case letters, digits and '-', starting with a letter or digit"),
    (("--issuer", "https://x.example", "--domain", "acme", "--jwks-uri", "https://x.example/k"),
     "--domain 'acme' is not a domain name such as acme.example"),
    (("--issuer", "https://x.example", "--claim", "phone=tel", "--jwks-uri", "https://x.example/k"),
     "--claim 'phone=tel' must be FIELD=NAME with FIELD one of email, name, groups"),
    (("--issuer", "https://x.example", "--client-secret-file", "/nonexistent/secret"),
     "--client-secret-file '/nonexistent/secret' cannot be read (No such file or directory)"),
])
def test_what_create_refuses_before_any_stack(argv: tuple[str, ...], line: str) -> None:
    assert act("create", "--tenant", "demo", *argv) == (2, line)


def test_an_empty_or_multi_line_secret_file_is_refused_without_showing_it(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    for content in ("\n", "line-one\nline-two\n"):
        path.write_text(content)
        status, line = act("create", "--tenant", "demo", "--issuer", "https://x.example", "--client-id", "c",
                           "--client-secret-file", str(path))
        assert (status, line) == (2, f"--client-secret-file {str(path)!r} must hold the secret alone, on one line")


def test_ids_and_domains_are_one_idp_s_within_a_tenant(aws: None, secret_file: str) -> None:
    base = ("create", "--tenant", "demo", "--protocol", "oidc", "--client-id", "c", "--client-secret-file", secret_file)
    assert act(*base, "--issuer", "https://a.example", "--id", "acme", "--domain", "acme.example")[0] == 0
    assert act(*base, "--issuer", "https://b.example", "--id", "acme") == (
        1, "tenant 'demo' already has an identity provider with id 'acme' (https://a.example): choose another --id")
    assert act(*base, "--issuer", "https://b.example", "--domain", "acme.example") == (
        1, "domain 'acme.example' already sends people to https://a.example (one IdP per domain)")
    from authgate.stores.identity_providers import IdentityProviderStore

    assert [i.issuer for i in IdentityProviderStore().of_tenant("demo")] == ["https://a.example"]


def test_an_id_jag_idp_is_updated_into_a_sign_in_idp(aws: None, secret_file: str) -> None:
    assert act("create", "--tenant", "demo", "--issuer", "https://okta.example", "--jwks-uri",
               "https://okta.example/keys")[0] == 0
    assert act("update", "--tenant", "demo", "--issuer", "https://okta.example", "--protocol", "oidc") == (
        2, "--protocol oidc needs --client-id (the client the IdP registered for authgate)")
    status, view = act("update", "--tenant", "demo", "--issuer", "https://okta.example", "--protocol", "oidc",
                       "--client-id", "authgate", "--client-secret-file", secret_file, "--trust-mfa", "mfa", "hwk")
    assert status == 0 and isinstance(view, dict)
    assert {k: view[k] for k in ("protocol", "idp_id", "sign_in", "jwks_uri", "mfa_values", "client_secret_set")} == {
        "protocol": "oidc", "idp_id": "okta-example", "sign_in": True, "jwks_uri": "https://okta.example/keys",
        "mfa_values": ["mfa", "hwk"], "client_secret_set": True}
    status, view = act("update", "--tenant", "demo", "--issuer", "https://okta.example", "--no-trust-mfa",
                       "--trust-email", "--step-up", "upstream")
    assert status == 0 and isinstance(view, dict)
    assert {k: view[k] for k in ("trust_mfa", "mfa_values", "trust_email", "step_up")} == {
        "trust_mfa": False, "mfa_values": [], "trust_email": True, "step_up": "upstream"}


# -- SAML: --metadata-url / --metadata-file (authgate_cli.admin.saml_metadata) --

def test_a_saml_idp_is_created_from_its_metadata_file(aws: None, tmp_path: Path) -> None:
    from tests.saml_support import metadata, signing_key

    okta = "http://www.okta.example/exk1fcia6d6EMsf331d8"  # Okta's and AD FS's entity IDs are http URLs
    (tmp_path / "idp.xml").write_bytes(metadata(entity_id=okta))
    status, view = act("create", "--tenant", "demo", "--metadata-file", str(tmp_path / "idp.xml"), "--label",
                       "Acme SSO", "--domain", "acme.example")
    assert status == 0 and isinstance(view, dict)
    assert {k: view[k] for k in ("issuer", "protocol", "idp_id", "sign_in", "saml")} == {
        "issuer": okta, "protocol": "saml", "idp_id": "acme-sso", "sign_in": True,
        "saml": {"entity_id": okta, "sso_url": "https://idp.democorp.example/sso", "slo_url": "",
                 "certificates": [signing_key().cert_pem],
                 "name_id_format": "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"}}
    status, shown = act("show", "--tenant", "demo", "--issuer", okta)
    assert status == 0 and isinstance(shown, dict) and shown["saml"] == view["saml"]


def test_saml_metadata_that_does_not_fit_the_command_is_refused(aws: None, tmp_path: Path) -> None:
    from tests.saml_support import IDP_ENTITY_ID, metadata

    md = tmp_path / "idp.xml"
    md.write_bytes(metadata())
    create = ("create", "--tenant", "demo", "--metadata-file", str(md))
    assert act(*create, "--issuer", "https://other.example") == (
        2, f"the metadata's entityID is {IDP_ENTITY_ID!r}: leave --issuer out")
    assert act(*create, "--protocol", "oidc", "--client-id", "c") == (
        2, "--metadata-url and --metadata-file are for --protocol saml")
    assert act(*create, "--metadata-url", "https://idp.example/md") == (
        2, "give --metadata-url or --metadata-file, not both")
    assert act(*create)[0] == 0
    other = tmp_path / "other.xml"
    other.write_bytes(metadata(entity_id="https://other-idp.example/saml"))
    assert act("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, "--metadata-file", str(other)) == (
        2, ("--metadata-url and --metadata-file are for --protocol saml, with the IdP's own metadata (its entityID "
            f"is 'https://other-idp.example/saml', not {IDP_ENTITY_ID!r})"))


# -- a SAML IdP made an OpenID Provider (authgate.administration.identity_provider_protocol) --

def saml_idp(tmp_path: Path, entity_id: str) -> tuple[str, ...]:
    """A SAML IdP of tenant demo from its metadata file (entityID `entity_id`, id acme-sso); the update's first words."""
    from tests.saml_support import metadata

    (tmp_path / "idp.xml").write_bytes(metadata(entity_id=entity_id))
    assert act("create", "--tenant", "demo", "--metadata-file", str(tmp_path / "idp.xml"), "--label", "Acme SSO",
               "--domain", "acme.example", "--create-users")[0] == 0
    return "update", "--tenant", "demo", "--issuer", entity_id


def linked_person(issuer: str, subject: str = "persistent|p-1") -> Any:
    """Carol, provisioned by the IdP `issuer` and linked to it under `subject`."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity
    from authgate.users.model import User

    carol = User("demo", "carol", 0, 0, user_id="usr_carol", email="carol@acme.example", email_verified=True,
                 federated_only=True)
    LinkedIdentityStore().provision(carol, LinkedIdentity("demo", issuer, subject, carol.user_id, "carol", 1,
                                                          "provisioned"))
    return carol


def test_a_saml_idp_becomes_an_openid_provider_keeping_its_id_and_settings(
        aws: None, secret_file: str, tmp_path: Path) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    issuer_url = "https://idp.acme.example/realms/acme"  # one issuer for both (Keycloak's, Entra ID v1's)
    update = saml_idp(tmp_path, issuer_url)
    assert act(*update, "--protocol", "oidc") == (
        2, "--protocol oidc needs --client-id (the client the IdP registered for authgate)")
    assert act(*update, "--protocol", "oidc", "--client-id", "authgate") == (
        2, "--protocol oidc needs --client-secret-file FILE (the client secret the IdP issued)")
    assert act(*update, "--protocol", "oidc", "--client-id", "authgate", "--client-secret-file", secret_file,
               "--metadata-file", str(tmp_path / "idp.xml")) == (
        2, "--metadata-url and --metadata-file are for --protocol saml")
    status, view = act(*update, "--protocol", "oidc", "--client-id", "authgate", "--client-secret-file", secret_file)
    assert status == 0 and isinstance(view, dict)
    assert {k: view[k] for k in ("issuer", "idp_id", "protocol", "sign_in", "label", "domains", "create_users",
                                 "client_id", "client_secret_set", "saml")} == {
        "issuer": issuer_url, "idp_id": "acme-sso", "protocol": "oidc", "sign_in": True, "label": "Acme SSO",
        "domains": ["acme.example"], "create_users": True, "client_id": "authgate", "client_secret_set": True,
        "saml": None}
    # What to register at it now: an OpenID Provider's sign-out URIs, under the id it kept; no SAML SP any more.
    assert view["backchannel_logout_uri"].endswith("/oauth/federation/demo/acme-sso/backchannel-logout")
    assert "sp_entity_id" not in view
    stored = IdentityProviderStore().get("demo", issuer_url)
    assert stored is not None and (stored.protocol, stored.saml, stored.idp_id) == ("oidc", None, "acme-sso")


def test_a_saml_idp_whose_entity_id_is_no_openid_issuer_stays_one(
        aws: None, secret_file: str, tmp_path: Path) -> None:
    okta = "http://www.okta.example/exk1fcia6d6EMsf331d8"
    update = saml_idp(tmp_path, okta)
    assert act(*update, "--protocol", "oidc", "--client-id", "authgate", "--client-secret-file", secret_file) == (
        2, (f"--protocol oidc needs the IdP's issuer to be its OpenID issuer, an https URL; {okta!r} is not one (an "
           "OpenID Provider of another issuer is another IdP: `authgate idps create`)"))
    assert act("show", "--tenant", "demo", "--issuer", okta)[1]["protocol"] == "saml"  # type: ignore[index]


def test_people_linked_to_a_saml_idp_are_linked_again_by_email_only_when_asked(
        aws: None, secret_file: str, tmp_path: Path) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    issuer_url = "https://idp.acme.example/realms/acme"
    update = (*saml_idp(tmp_path, issuer_url), "--protocol", "oidc", "--client-id", "authgate",
              "--client-secret-file", secret_file)
    carol = linked_person(issuer_url)
    assert act(*update) == (
        1, (f"{issuer_url} has 1 linked identity, each named by a SAML NameID, which an OpenID Connect sub does not "
           "match: give --relink-by-email (with --trust-email) to remove them and link each person again by their "
           "verified email at their next sign-in"))
    assert act(*update, "--relink-by-email") == (
        2, "--relink-by-email links people again by their verified email: give --trust-email too")
    assert act("update", "--tenant", "demo", "--issuer", issuer_url, "--label", "Acme", "--relink-by-email") == (
        2, "--relink-by-email is for a change of --protocol between oidc and saml")
    store = LinkedIdentityStore()
    assert len(store.of_issuer("demo", issuer_url)) == 1
    assert act("show", "--tenant", "demo", "--issuer", issuer_url)[1]["protocol"] == "saml"  # type: ignore[index]

    status, view = act(*update, "--relink-by-email", "--trust-email")
    assert status == 0 and isinstance(view, dict)
    assert (view["protocol"], view["idp_id"], view["trust_email"]) == ("oidc", "acme-sso", True)
    assert store.of_issuer("demo", issuer_url) == ()
    assert UserStore().get("demo", "carol") == carol._replace(created_at=carol.created_at)  # the person stays
