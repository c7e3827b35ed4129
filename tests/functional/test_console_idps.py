"""The console's identity provider pages (docs/console.md, "Identity providers"): the list and one record as
`authgate idps list|show` give them; create, update and delete through authgate.administration.identity_providers,
the one implementation the command calls, with its checks and messages; the client secret never shown, logged or in an
event; the roles' rule before anything is read, whatever the URL or a replayed form says.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    BAR,
    CONSOLE_PAGE_HEADERS,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    page_headers,
)
from tests.functional.person_events_support import TIME, UUID7

Invoke = Any
FORM = "application/x-www-form-urlencoded"
SECRET = "acme-upstream-secret-0123456789"
OLIVIA_BAR = BAR.format(who="olivia (owner)")
DEMO_IDP = "http://127.0.0.1:8766"  # Demo Corp SSO's issuer in the demo seed (tests' moto)


def get(invoke: Invoke, cookie: str, path: str, **query: str) -> dict[str, Any]:
    return invoke("console", console_event("GET", path, urlencode(query), cookie=cookie))


def form(invoke: Invoke, cookie: str, path: str, **query: str) -> tuple[dict[str, Any], str, dict[str, str]]:
    """A form page, the Cookie header that posts it (the session and the binding), and its hidden fields."""
    result = get(invoke, cookie, path, **query)
    binding = [c.split(";", 1)[0] for c in result["multiValueHeaders"].get("Set-Cookie", [])]
    return result, "; ".join([cookie, *binding]), page_of(result).hidden()


def post(invoke: Invoke, jar: str, path: str, fields: dict[str, str]) -> dict[str, Any]:
    return invoke("console", console_event("POST", path, cookie=jar, body=urlencode(fields).encode(),
                                           content_type=FORM))


def create(invoke: Invoke, cookie: str, kind: str = "oidc", **fields: str) -> dict[str, Any]:
    _, jar, hidden = form(invoke, cookie, "/console/idp-create", tenant="demo", kind=kind)
    return post(invoke, jar, "/console/idp-create", {**hidden, **fields})


ACME = {"issuer": "https://sso.acme.example", "client_id": "authgate", "client_secret": SECRET,
        "label": "Acme SSO", "domains": "Acme.example acme.test", "trust_mfa": "mfa", "claims": "groups=roles",
        "step_up": "local"}


# A sign-in provider's id on its change form, as the page reads.
ID_FIELD = ("ID Its short id in the tenant, in the URLs registered at the IdP (changed: change them there too); empty: "
            "as it is.")
# A SAML IdP's metadata fields, new, as the page reads.
METADATA_FIELDS = ("Metadata URL Where the IdP publishes its SAML metadata (https), fetched now; or paste the metadata "
                   "below. Metadata XML The IdP's EntityDescriptor, as it offers it for download.")
# A change of protocol's `--relink-by-email`, as the page reads.
RELINK_FIELD = ("Link people again by their verified email When people are linked to it: their links, made under the "
                "other protocol, are removed and each is linked again by their verified email at their next sign-in "
                "(needs Link a person to the account with the same verified email, above).")
# The ID-JAG fields of every form, as the page reads.
ID_JAG_FIELDS = ("Keys URL (jwks_uri) Where it publishes the keys its ID-JAGs are signed with (https); or paste them "
                 "below. {kept} Keys (a JWK Set, JSON) Its public signing keys, {{\"keys\": "
                 "[...]}}, stored with it. User match sub email An ID-JAG's person: the user whose username is its sub "
                 "(sub), or whose email is its email claim (email).")


def cli(*argv: str) -> tuple[int, str]:
    """`authgate idps ARGV`'s action on this stack (moto): its exit status, and what it printed or said."""
    from authgate_cli.admin import idps
    from authgate_cli.admin.arguments import InvalidInput
    from authgate_cli.main import build_parser

    args = build_parser(["idps"]).parse_args(["idps", *argv])
    try:
        idps._validate(args)
    except InvalidInput as exc:
        return 2, str(exc)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = idps.ACTIONS[args.idps_command](args, out)
    return status, out.getvalue() if status == 0 else err.getvalue().removeprefix("authgate idps: ").strip()


def test_olivia_lists_demo_s_identity_providers_and_opens_demo_corp_sso(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    listed = get(invoke, cookie, "/console/idps", tenant="demo")
    assert listed["statusCode"] == 200 and page_headers(listed) == CONSOLE_PAGE_HEADERS
    assert page_of(listed).text() == (
        f"{OLIVIA_BAR} Identity providers Tenant acme demo "
        "operators Show Identity providers of demo ID Label Issuer Protocol Sign-in Domains Keys Create users "
        f"democorp Demo Corp SSO {DEMO_IDP} oidc no democorp.example discovery yes Add an OpenID Connect provider "
        "Add Google Add Sign in with Apple Add a SAML 2.0 provider Add an issuer of ID-JAGs only")
    assert 'href="http://127.0.0.1:3000/console/idp?tenant=demo&amp;idp_id=democorp"' in listed["body"]
    assert 'aria-current="page">Identity providers</a>' in listed["body"]

    shown = get(invoke, cookie, "/console/idp", tenant="demo", idp_id="democorp")
    assert shown["statusCode"] == 200 and page_headers(shown) == CONSOLE_PAGE_HEADERS
    created = re.search(r"Created (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC)", page_of(shown).text())
    assert created is not None
    assert page_of(shown).text() == (
        f"{OLIVIA_BAR} Demo Corp SSO (demo) Identity provider Protocol OpenID Connect Issuer {DEMO_IDP} ID democorp "
        "Label Demo Corp SSO Domains democorp.example Offered for sign-in no Client ID authgate-local "
        "Client secret set Scopes openid email profile Keys discovery User match sub Create users yes Trust email no "
        f"Trust MFA urn:democorp:mfa Step-up local Claim mapping the defaults Created {created.group(1)} "
        "Register at the identity provider Nothing: it is not offered for sign-in. "
        "Actions Change Delete")
    assert "democorp-sso-secret" not in shown["body"]
    assert get(invoke, cookie, "/console/idps")["statusCode"] == 200  # the first tenant, acme: none there


def test_olivia_creates_an_oidc_idp_as_the_command_would_its_secret_never_shown_logged_or_recorded(
        demo: Any, invoke: Invoke, audit_events: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from authgate.administration.identity_providers import view
    from authgate.federation import secrets
    from authgate.stores.identity_providers import IdentityProviderStore

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    cookie = operator_session()
    asked, jar, hidden = form(invoke, cookie, "/console/idp-create", tenant="demo", kind="oidc")
    assert asked["statusCode"] == 200 and page_headers(asked) == CONSOLE_PAGE_HEADERS
    assert '<input id="client_secret" name="client_secret" type="password" autocomplete="new-password"' \
        in asked["body"]
    assert {k: v for k, v in hidden.items() if k not in ("nonce", "csrf")} == {"tenant": "demo", "kind": "oidc"}

    done = post(invoke, jar, "/console/idp-create", {**hidden, **ACME})
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    text = page_of(done).text()
    assert text.startswith(f"{OLIVIA_BAR} Added: Acme SSO (demo) Done: tenant demo trusts https://sso.acme.example "
                           "as acme-sso. Identity provider Protocol OpenID Connect Issuer https://sso.acme.example "
                           "ID acme-sso Label Acme SSO Domains acme.example, acme.test Offered for sign-in yes "
                           "Client ID authgate Client secret set Scopes openid email profile Keys discovery "
                           "User match sub Create users no Trust email no Trust MFA mfa Step-up local Claim mapping groups=roles "
                           "Created "), text
    assert text.endswith(
        "Register at the identity provider Redirect URI http://127.0.0.1:3000/oauth/federation/callback "
        "Post-logout redirect URI http://127.0.0.1:3000/oauth/federation/logged-out Back-channel logout URI "
        "http://127.0.0.1:3000/oauth/federation/demo/acme-sso/backchannel-logout Open Acme SSO")
    assert SECRET not in done["body"]
    stored = IdentityProviderStore().get("demo", "https://sso.acme.example")
    assert stored is not None and SECRET not in stored.client_secret and secrets.unseal(stored, "client_secret") \
        == SECRET
    # What `authgate idps create` with the same flags stores, but for the time and the sealed secret's nonce.
    IdentityProviderStore().delete("demo", "https://sso.acme.example")
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    assert cli("create", "--tenant", "demo", "--issuer", "https://sso.acme.example", "--protocol", "oidc",
               "--client-id", "authgate", "--client-secret-file", str(secret_file), "--label", "Acme SSO",
               "--domain", "Acme.example", "--domain", "acme.test", "--trust-mfa", "mfa", "--claim",
               "groups=roles", "--step-up", "local")[0] == 0
    by_command = IdentityProviderStore().get("demo", "https://sso.acme.example")
    assert by_command is not None
    ignored = {"created_at", "client_secret"}
    assert {k: v for k, v in view(by_command, "x").items() if k not in ignored} == \
        {k: v for k, v in view(stored, "x").items() if k not in ignored}

    (event,) = [dict(e) for e in audit_events() if e["action"] == "idp.created"]
    assert UUID7.fullmatch(event.pop("id")) and TIME.fullmatch(event.pop("time")) and event.pop("request_id")
    assert event == {
        "tenant": "demo", "action": "idp.created", "outcome": "success", "source_ip": "127.0.0.1", "user_agent": "",
        "actor": {"type": "operator", "id": "olivia", "principal": "console:usr_demoolivia000000000000"},
        "target": {"type": "idp", "id": "https://sso.acme.example"},
        "details": {"via": "console", "console_action": "create", "roles": "owner", "idp_id": "acme-sso",
                    "fields": ["claims", "client_id", "client_secret", "domains", "issuer", "label", "protocol",
                               "step_up", "trust_mfa"]}}
    assert SECRET not in repr(audit_events())


@pytest.mark.parametrize(("fields", "argv", "message", "status"), [
    ({"scopes": "email profile"}, ("--scopes", "email profile"),
     "--scopes 'email profile' must include openid (OpenID Connect Core 3.1.2.1)", 2),
    ({"domains": "acme"}, ("--domain", "acme"), "--domain 'acme' is not a domain name such as acme.example", 2),
    ({"claims": "phone=tel"}, ("--claim", "phone=tel"),
     "--claim 'phone=tel' must be FIELD=NAME with FIELD one of email, name, groups", 2),
    ({"issuer": "http://sso.acme.example"}, ("--issuer", "http://sso.acme.example"),
     ("--issuer 'http://sso.acme.example' must be an https URL without query, fragment or user information "
     "(RFC 8414 2)"), 2),
    ({"idp_id": "Acme SSO"}, ("--id", "Acme SSO"),
     "--id 'Acme SSO' must be 1 to 32 lower-case letters, digits and '-', starting with a letter or digit", 2),
    ({"idp_id": "democorp"}, ("--id", "democorp"),
     f"tenant 'demo' already has an identity provider with id 'democorp' ({DEMO_IDP}): choose another --id", 1),
    ({"domains": "democorp.example"}, ("--domain", "democorp.example"),
     f"domain 'democorp.example' already sends people to {DEMO_IDP} (one IdP per domain)", 1),
    ({"client_secret": ""}, (), "--protocol oidc needs --client-secret-file FILE (the client secret the IdP issued)",
     2),
])
def test_the_console_refuses_what_the_command_refuses_with_its_words_and_stores_nothing(
        demo: Any, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fields: dict[str, str],
        argv: tuple[str, ...], message: str, status: int) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    base = {"issuer": "https://sso.acme.example", "client_id": "authgate", "client_secret": SECRET}
    assert_console_error_page(create(invoke, operator_session(), **{**base, **fields}), "invalid_request", message,
                              400)
    assert [i.issuer for i in IdentityProviderStore().of_tenant("demo")] == [DEMO_IDP]
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET)
    flags = ["--issuer", "https://sso.acme.example", "--protocol", "oidc", "--client-id", "authgate"]
    flags += [] if fields.get("client_secret") == "" else ["--client-secret-file", str(secret_file)]
    if "--issuer" in argv:
        flags = flags[2:]
    assert cli("create", "--tenant", "demo", *flags, *argv) == (status, message)


def test_a_secret_of_two_lines_is_refused_without_being_shown(demo: Any, invoke: Invoke) -> None:
    refused = create(invoke, operator_session(), issuer="https://sso.acme.example", client_id="authgate",
                     client_secret="first-line\nsecond-line")
    assert_console_error_page(refused, "invalid_request", "the client secret must hold the secret alone, on one line",
                              400)
    assert "first-line" not in refused["body"]


def test_olivia_changes_an_idp_then_deletes_it_after_confirming(
        demo: Any, invoke: Invoke, audit_events: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate.federation import secrets
    from authgate.stores.identity_providers import IdentityProviderStore

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    cookie = operator_session()
    assert create(invoke, cookie, **ACME)["statusCode"] == 200
    asked, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", idp_id="acme-sso")
    assert page_of(asked).text() == (
        f"{OLIVIA_BAR} Change Acme SSO (demo) Label The sign-in button's text; empty: as it is. {ID_FIELD} Client ID "
        "The client the IdP registered for authgate; empty: as it is. Scopes What a sign-in asks for; empty: as it is (openid "
        "email profile). Client secret A new client secret the IdP issued; empty: the secret stays as it is. Domains "
        "Email domains whose people it signs in, separated by spaces (acme.example acme.test). Create a user for a "
        "person the tenant does not know Link a person to the account with the same verified email Trust MFA The acr "
        "or amr values that count as a second factor, separated by spaces; empty: none. Step-up local upstream When a "
        "second factor is needed and the IdP's is not trusted: authgate's own (local) or ask the IdP (upstream). "
        "Claim mapping Which of its claims hold the email, name or groups, e.g. email=upn groups=roles; empty: the "
        f"defaults. {ID_JAG_FIELDS.format(kept='Now: discovery. Empty: as it is.')} Protocol Signs people in by "
        "OpenID Connect SAML 2.0 SAML 2.0: it signs people in by SAML from now on, with the metadata below (its "
        f"entityID must be https://sso.acme.example). {METADATA_FIELDS} {RELINK_FIELD} Save Cancel")
    assert 'value="acme.example acme.test"' in asked["body"] and 'value="mfa"' in asked["body"]
    assert SECRET not in asked["body"] and 'name="client_secret" type="password"' in asked["body"]
    assert {k: v for k, v in hidden.items() if k not in ("nonce", "csrf")} == {
        "tenant": "demo", "issuer": "https://sso.acme.example"}

    changed = post(invoke, jar, "/console/idp-update", {
        **hidden, "label": "Acme", "domains": "acme.example", "trust_email": "yes", "trust_mfa": "",
        "step_up": "upstream", "claims": "groups=roles", "client_secret": "a-new-secret-9876543210"})
    assert changed["statusCode"] == 200
    assert page_of(changed).text().startswith(
        f"{OLIVIA_BAR} Changed: Acme (demo) Done: identity provider https://sso.acme.example of tenant demo changed. "
        "Identity provider Protocol OpenID Connect Issuer https://sso.acme.example ID acme-sso Label Acme Domains "
        "acme.example Offered for sign-in yes Client ID authgate Client secret set Scopes openid email profile "
        "Keys discovery User match sub Create users no Trust email yes Trust MFA no Step-up upstream Claim mapping groups=roles")
    stored = IdentityProviderStore().get("demo", "https://sso.acme.example")
    assert stored is not None and secrets.unseal(stored, "client_secret") == "a-new-secret-9876543210"
    # An empty secret keeps it; no domains at all forgets them.
    post(invoke, jar, "/console/idp-update", {**hidden, "domains": "", "step_up": "local", "idp_id": "acme"})
    kept = IdentityProviderStore().get("demo", "https://sso.acme.example")
    assert kept is not None and kept.domains == () and secrets.unseal(kept, "client_secret") == \
        "a-new-secret-9876543210" and (kept.label, kept.idp_id) == ("Acme", "acme")

    asked, jar, hidden = form(invoke, cookie, "/console/idp-delete", tenant="demo", idp_id="acme")
    assert page_of(asked).text() == (
        f"{OLIVIA_BAR} Delete Acme (demo)? Tenant demo stops trusting https://sso.acme.example: the button \"Sign in "
        "with Acme\" and its email domains leave the sign-in pages, sign-ins and ID-JAGs from it are refused from now "
        "on, and people who sign in only through it can no longer sign in. Delete Cancel")
    assert IdentityProviderStore().get("demo", "https://sso.acme.example") is not None  # asking deletes nothing
    deleted = post(invoke, jar, "/console/idp-delete", hidden)
    said = ("tenant demo no longer trusts https://sso.acme.example: its ID-JAGs and sign-ins are refused from now on")
    assert page_of(deleted).text() == f"{OLIVIA_BAR} Deleted: https://sso.acme.example (demo) Done: {said}. Back to " \
                                       "the identity providers"
    assert IdentityProviderStore().get("demo", "https://sso.acme.example") is None
    assert_console_error_page(post(invoke, jar, "/console/idp-delete", hidden), "not_found",
                              "Tenant 'demo' trusts no identity provider 'https://sso.acme.example'.", 404)
    events = [(e["action"], e["outcome"], e["details"]["console_action"], e["details"].get("fields"))
              for e in audit_events() if e["action"].startswith("idp.")]
    assert events == [
        ("idp.created", "success", "create", ["claims", "client_id", "client_secret", "domains", "issuer", "label",
                                              "protocol", "step_up", "trust_mfa"]),
        ("idp.changed", "success", "update", ["claims", "client_secret", "create_users", "domains", "label",
                                              "step_up", "trust_email", "trust_mfa"]),
        ("idp.changed", "success", "update", ["create_users", "idp_id", "no_domains", "step_up", "trust_email",
                                              "trust_mfa"]),
        ("idp.deleted", "success", "delete", None), ("idp.deleted", "failure", "delete", None)]
    assert "a-new-secret" not in repr(audit_events()) and SECRET not in repr(audit_events())


def test_a_saml_idp_from_its_pasted_metadata_shows_its_certificates_and_what_to_register(
        demo: Any, invoke: Invoke) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    from tests.saml_support import IDP_ENTITY_ID, metadata, signing_key

    cookie = operator_session()
    done = create(invoke, cookie, "saml", metadata=metadata().decode(), label="Acme SAML", domains="acme.example")
    assert done["statusCode"] == 200, page_of(done).text()
    cert = x509.load_pem_x509_certificate(signing_key().cert_pem.encode())
    fingerprint = cert.fingerprint(hashes.SHA256()).hex(":").upper()
    shown = page_of(get(invoke, cookie, "/console/idp", tenant="demo", idp_id="acme-saml")).text()
    assert (f"Protocol SAML 2.0 Entity ID {IDP_ENTITY_ID} ID acme-saml Label Acme SAML Domains acme.example Offered "
            "for sign-in yes Sign-on service https://idp.democorp.example/sso Logout service - NameID format "
            "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent Metadata URL given as a document Certificate 1 "
            f"SHA-256 {fingerprint}, expires ") in shown
    assert shown.endswith(
        "Register at the identity provider SP entity ID "
        "(audience) http://127.0.0.1:3000/saml/demo Assertion Consumer Service (HTTP-POST) "
        "http://127.0.0.1:3000/saml/demo/acs Single Logout Service (HTTP-Redirect) http://127.0.0.1:3000/saml/demo/slo "
        "SP metadata http://127.0.0.1:3000/saml/demo/metadata Actions Change Delete")


@pytest.mark.parametrize(("fields", "message"), [
    ({"metadata": '<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>'}, "the metadata XML: "),
    ({"metadata_url": "https://10.0.0.1/saml/metadata"}, "--metadata-url 'https://10.0.0.1/saml/metadata': "),
    ({"metadata_url": "http://idp.acme.example/metadata"}, "--metadata-url 'http://idp.acme.example/metadata': "),
    ({"metadata_url": "https://idp.acme.example/md", "metadata": "<x/>"},
     "give --metadata-url or --metadata-file, not both"),
])
def test_saml_metadata_is_read_under_the_command_s_rules(demo: Any, invoke: Invoke, fields: dict[str, str],
                                                         message: str) -> None:
    refused = create(invoke, operator_session(), "saml", label="Acme", **fields)
    assert refused["statusCode"] == 400
    detail = page_of(refused).text().split("Invalid request ", 1)[-1].split(" Error code:")[0]
    assert detail.startswith(message), detail


def test_pasted_metadata_is_bounded_as_the_command_bounds_a_file(demo: Any, invoke: Invoke,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The request's own bound first (64 KB by default: the 413 page), and the metadata reader's (256 KB) on a stage
    that takes larger requests."""
    from authgate import caches
    from authgate.settings import get_settings

    cookie = operator_session()
    limit = get_settings().max_body_bytes
    assert_console_error_page(create(invoke, cookie, "saml", label="Acme", metadata="<" + "a" * limit),
                              "payload_too_large", f"The request body exceeds {limit} bytes.", 413)
    monkeypatch.setenv("AUTHGATE_MAX_BODY_BYTES", str(1024 * 1024))
    caches.reset()
    assert_console_error_page(create(invoke, cookie, "saml", label="Acme", metadata="<" + "a" * (256 * 1024)),
                              "invalid_request", "the metadata XML is larger than 262144 bytes", 400)


SUPPORT_PAGES = [("/console/idps", {"tenant": "demo"}), ("/console/idp", {"tenant": "demo", "idp_id": "democorp"}),
                 ("/console/idp-create", {"tenant": "demo", "kind": "oidc"}),
                 ("/console/idp-create", {"tenant": "demo", "kind": "idjag"}),
                 ("/console/idp-update", {"tenant": "demo", "idp_id": "democorp"}),
                 ("/console/idp-delete", {"tenant": "demo", "idp_id": "democorp"})]


def test_support_gets_the_403_page_for_every_page_and_form_even_replayed(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    grant("sam", "support", "demo")
    sam = operator_session("sam", "usr_sam")
    home = get(invoke, sam, "/console/people", tenant="demo")
    assert "Identity providers" not in page_of(home).text()
    for path, query in SUPPORT_PAGES:
        assert_console_error_page(get(invoke, sam, path, **query), "operator_forbidden",
                                  "Your roles (support (demo)) do not allow this in tenant demo.", 403)
    # olivia's forms, replayed by sam with a CSRF token of his own browser (from his sign-out form).
    jar = f"{sam}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    mine = page_of(home).hidden()
    for path, fields in [("/console/idp-create", {"tenant": "demo", "kind": "oidc", **ACME}),
                         ("/console/idp-create", {"tenant": "demo", "kind": "idjag", "issuer": JAG,
                                                  "jwks_uri": f"{JAG}/keys"}),
                         ("/console/idp-update", {"tenant": "demo", "issuer": DEMO_IDP, "label": "Hijacked"}),
                         ("/console/idp-delete", {"tenant": "demo", "issuer": DEMO_IDP})]:
        assert_console_error_page(post(invoke, jar, path, {**mine, **fields}), "operator_forbidden",
                                  "Your roles (support (demo)) do not allow this in tenant demo.", 403)
    assert [(i.issuer, i.label) for i in IdentityProviderStore().of_tenant("demo")] == [(DEMO_IDP, "Demo Corp SSO")]
    refusals = [(e["details"]["console_action"], e["tenant"]) for e in audit_events() if e["action"] ==
                "console.refused"]
    assert refusals == [("idps.view", "demo"), ("idps.view", "demo"), *[("idps.change", "demo")] * 8]
    assert SECRET not in repr(audit_events())


def test_an_auditor_sees_but_changes_nothing_and_an_admin_changes(
        demo: Any, invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    grant("audrey", "auditor")
    audrey = operator_session("audrey", "usr_audrey")
    listed = page_of(get(invoke, audrey, "/console/idps", tenant="demo")).text()
    assert "Demo Corp SSO" in listed and "Add" not in listed
    shown = page_of(get(invoke, audrey, "/console/idp", tenant="demo", idp_id="democorp")).text()
    assert "Client secret set" in shown and "Actions" not in shown
    _, olivia_jar, olivia_form = form(invoke, operator_session(), "/console/idp-delete", tenant="demo",
                                      idp_id="democorp")
    home = get(invoke, audrey, "/console")
    jar = f"{audrey}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    forged = {**page_of(home).hidden(), "tenant": "demo", "issuer": DEMO_IDP}
    assert_console_error_page(post(invoke, jar, "/console/idp-delete", forged), "operator_forbidden",
                              "Your roles (auditor) do not allow this in tenant demo.", 403)
    assert IdentityProviderStore().get("demo", DEMO_IDP) is not None

    grant("adam", "admin")
    made = create(invoke, operator_session("adam", "usr_adam"), **ACME)
    assert made["statusCode"] == 200 and "Signed in as adam (admin)" in page_of(made).text()
    assert post(invoke, olivia_jar, "/console/idp-delete", olivia_form)["statusCode"] == 200


@pytest.mark.parametrize(("path", "query", "status", "code", "detail"), [
    ("/console/idp", {"tenant": "demo"}, 400, "invalid_request",
     "Name the identity provider with tenant and idp_id (or issuer)."),
    ("/console/idp", {"tenant": "demo", "idp_id": "nobody"}, 404, "not_found",
     "Tenant 'demo' trusts no identity provider 'nobody'."),
    ("/console/idps", {"tenant": "nowhere"}, 404, "not_found", "There is no tenant 'nowhere'."),
    ("/console/idp-create", {"tenant": "demo", "kind": "ldap"}, 400, "invalid_request",
     "There is no kind 'ldap': the kinds are oidc, google, apple, saml, idjag."),
    ("/console/idp-create", {"tenant": "nowhere", "kind": "oidc"}, 404, "not_found", "There is no tenant 'nowhere'."),
])
def test_a_page_that_names_nothing_there_says_so(demo: Any, invoke: Invoke, path: str, query: dict[str, str],
                                                status: int, code: str, detail: str) -> None:
    assert_console_error_page(get(invoke, operator_session(), path, **query), code, detail, status)


def test_a_forged_or_stale_form_changes_nothing(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    _, jar, hidden = form(invoke, operator_session(), "/console/idp-delete", tenant="demo", idp_id="democorp")
    assert_console_error_page(post(invoke, jar, "/console/idp-delete", {**hidden, "csrf": "forged"}),
                              "invalid_request", "The form has expired or was altered. Open it again.", 400)
    assert_console_error_page(post(invoke, jar, "/console/idp-delete", {**hidden, "issuer": ""}), "invalid_request",
                              "Name the identity provider with tenant and issuer.", 400)
    assert IdentityProviderStore().get("demo", DEMO_IDP) is not None


def test_google_is_one_click_with_its_client(demo: Any, invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    done = create(invoke, operator_session(), "google", client_id="123.apps.googleusercontent.com",
                  client_secret=SECRET, domains="acme.example", scopes="openid email")
    assert page_of(done).text().split("Done: ")[1].startswith(
        "tenant demo trusts https://accounts.google.com as google. Identity provider Protocol OpenID Connect Issuer "
        "https://accounts.google.com ID google Label Google Domains acme.example Offered for sign-in yes Client ID "
        "123.apps.googleusercontent.com Client secret set Scopes openid email Preset google")



# A Sign in with Apple provider's record, its key id `key`, as the page reads.
APPLE_SHOWN = ("Identity provider Protocol OpenID Connect Issuer https://appleid.apple.com ID apple Label Apple Domains - "
               "Offered for sign-in yes Client ID com.acme.signin Client secret not set Scopes openid email name Preset "
               "apple Apple team and key TEAM123456 {key}, private key set")


def p8() -> str:
    """A .p8 key as Apple issues it: an EC P-256 private key in PKCS #8 PEM."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


def test_sign_in_with_apple_takes_its_key_instead_of_a_secret_and_never_shows_it(
        demo: Any, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, audit_events: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.federation import secrets
    from authgate.stores.identity_providers import IdentityProviderStore

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    pem = p8()
    cookie = operator_session()
    asked = get(invoke, cookie, "/console/idp-create", tenant="demo", kind="apple")
    assert page_of(asked).text().startswith(
        f"{OLIVIA_BAR} Add Sign in with Apple (demo) Services ID The Services ID Apple registered for authgate, e.g. "
        "com.acme.signin. Team ID Your Apple team id: ten letters and digits. Key ID The id of the key below: ten "
        "letters and digits. Private key (.p8) The .p8 file Apple issued for Sign in with Apple, pasted; sealed "
        "before it is stored, never shown. Scopes What a sign-in asks for; empty: openid email name. Label")
    apple = {"client_id": "com.acme.signin", "apple_team_id": "TEAM123456", "apple_key_id": "KEY1234567"}
    assert_console_error_page(create(invoke, cookie, "apple", **apple, apple_private_key="not a key"),
                              "invalid_request", "the Apple private key is not the EC P-256 private key (.p8) Apple "
                              "issued for Sign in with Apple", 400)
    assert_console_error_page(create(invoke, cookie, "apple", **{**apple, "apple_team_id": "team"},
                                     apple_private_key=pem), "invalid_request",
                              "--apple-team-id 'team' must be Apple's ten letters and digits (e.g. ABCDE12345)", 400)
    done = create(invoke, cookie, "apple", **apple, apple_private_key=pem)
    assert page_of(done).text().split("Done: ")[1].startswith(
        f"tenant demo trusts https://appleid.apple.com as apple. {APPLE_SHOWN.format(key='KEY1234567')}")
    stored = IdentityProviderStore().get("demo", "https://appleid.apple.com")
    assert stored is not None and secrets.unseal(stored, "apple_private_key") == pem
    key_line = pem.splitlines()[1]
    assert key_line not in done["body"] and key_line not in repr(audit_events())
    update = page_of(get(invoke, cookie, "/console/idp-update", tenant="demo", idp_id="apple")).text()
    assert "Client secret" not in update and (
        "Team ID Your Apple team id; empty: as it is. Key ID The id of the key below; empty: as it is. Private key "
        "(.p8) A new .p8 key Apple issued for Sign in with Apple, pasted; sealed before it is stored, never shown. "
        "Empty: the key stays as it is.") in update

    # A new key: pasted, sealed, never shown back, logged or recorded; a bad one refused as the command refuses it.
    capsys.readouterr()
    pem2 = p8()
    _, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", idp_id="apple")
    changed = post(invoke, jar, "/console/idp-update", {**hidden, "apple_key_id": "KEY7654321",
                                                        "apple_private_key": pem2})
    assert changed["statusCode"] == 200 and page_headers(changed) == CONSOLE_PAGE_HEADERS
    assert page_of(changed).text().split("Done: ")[1].startswith(
        f"identity provider https://appleid.apple.com of tenant demo changed. {APPLE_SHOWN.format(key='KEY7654321')}")
    stored = IdentityProviderStore().get("demo", "https://appleid.apple.com")
    assert stored is not None and secrets.unseal(stored, "apple_private_key") == pem2 and stored.apple_key_id == \
        "KEY7654321"
    new_line = pem2.splitlines()[1]
    assert new_line not in changed["body"] and new_line not in repr(audit_events())
    assert new_line not in repr(capsys.readouterr()) and new_line not in repr(stored)
    assert [e["details"]["fields"] for e in audit_events() if e["action"] == "idp.changed"] == [
        ["apple_key_id", "apple_private_key", "create_users", "no_domains", "trust_email", "trust_mfa"]]
    _, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", idp_id="apple")
    refused = post(invoke, jar, "/console/idp-update", {**hidden, "apple_private_key": "not a key"})
    why = "is not the EC P-256 private key (.p8) Apple issued for Sign in with Apple"
    assert_console_error_page(refused, "invalid_request", f"the Apple private key {why}", 400)
    bad_file = tmp_path / "bad.p8"
    bad_file.write_text("not a key")
    assert cli("update", "--tenant", "demo", "--issuer", "https://appleid.apple.com", "--apple-private-key-file",
               str(bad_file)) == (2, f"--apple-private-key-file {str(bad_file)!r} {why}")
    stored = IdentityProviderStore().get("demo", "https://appleid.apple.com")
    assert stored is not None and secrets.unseal(stored, "apple_private_key") == pem2


JAG = "https://jag.acme.example"


@pytest.mark.slow  # over 0.5 s of CPU (a password hashed, keys made)
def test_an_issuer_of_id_jags_only_is_added_with_its_pasted_keys_and_changed_as_the_command_does(
        demo: Any, invoke: Invoke, audit_events: Any, tmp_path: Path) -> None:
    from authgate.administration.identity_providers import view
    from authgate.stores.identity_providers import IdentityProviderStore
    from tests.idp_support import TestIdp

    keys = TestIdp(JAG).jwks_json().decode()
    cookie = operator_session()
    asked, jar, hidden = form(invoke, cookie, "/console/idp-create", tenant="demo", kind="idjag")
    assert asked["statusCode"] == 200 and page_headers(asked) == CONSOLE_PAGE_HEADERS
    kept = "Empty: a sign-in provider's own, from its discovery."
    assert page_of(asked).text() == (
        f"{OLIVIA_BAR} Add an issuer of ID-JAGs only (demo) Issuer The IdP's issuer identifier, an https URL (the iss "
        "of its ID-JAGs). Create a user for a person the tenant does not know "
        f"{ID_JAG_FIELDS.format(kept=kept)} Add Cancel")
    done = post(invoke, jar, "/console/idp-create", {**hidden, "issuer": JAG, "jwks": keys, "user_match": "email",
                                                     "create_users": "yes"})
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    text = page_of(done).text()
    assert re.fullmatch(re.escape(
        f"{OLIVIA_BAR} Added: {JAG} (demo) Done: tenant demo trusts {JAG} as an ID-JAG issuer. Identity provider "
        f"Protocol ID-JAG only Issuer {JAG} ID - Label - Domains - Offered for sign-in no Keys 1 key inline User match "
        "email Create users yes Trust email no Trust MFA no Step-up local Claim mapping the defaults Created ")
        + r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC" + re.escape(
        f" Register at the identity provider Nothing: it is not offered for sign-in. Open {JAG}"), text), text
    stored = IdentityProviderStore().get("demo", JAG)
    assert stored is not None
    # What `authgate idps create` stores of the same keys in a file.
    IdentityProviderStore().delete("demo", JAG)
    key_file = tmp_path / "jwks.json"
    key_file.write_text(keys)
    assert cli("create", "--tenant", "demo", "--issuer", JAG, "--jwks-file", str(key_file), "--user-match", "email",
               "--create-users")[0] == 0
    by_command = IdentityProviderStore().get("demo", JAG)
    assert by_command is not None and view(by_command, "x") == {**view(stored, "x"),
                                                                "created_at": by_command.created_at}

    # Its change form, found by its issuer (it has no id): what an ID-JAG issuer has.
    asked, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", issuer=JAG)
    assert page_of(asked).text() == (
        f"{OLIVIA_BAR} Change {JAG} (demo) Create a user for a person the tenant does not know "
        f"{ID_JAG_FIELDS.format(kept='Now: 1 key inline. Empty: as it is.')} Sign-in Offer it for sign-in No: "
        "ID-JAGs only OpenID Connect SAML 2.0 OpenID Connect: with its client below; SAML 2.0: with its metadata below "
        "(its entityID must be its issuer). Client ID OpenID Connect: the client the IdP registered for authgate. "
        "Client secret The client secret the IdP issued; sealed before it is stored, never shown. Scopes OpenID "
        f"Connect: what a sign-in asks for; empty: openid email profile. {METADATA_FIELDS} Label The sign-in button's text, e.g. \"Acme SSO\". ID Its short id in the tenant; empty: from the label or "
        "the issuer's host. Domains Email domains whose people it signs in, separated by spaces. Save Cancel")
    changed = post(invoke, jar, "/console/idp-update", {**hidden, "jwks_uri": f"{JAG}/keys", "user_match": "sub"})
    assert page_of(changed).text().startswith(
        f"{OLIVIA_BAR} Changed: {JAG} (demo) Done: identity provider {JAG} of tenant demo changed. Identity provider "
        f"Protocol ID-JAG only Issuer {JAG} ID - Label - Domains - Offered for sign-in no Keys {JAG}/keys User match "
        "sub Create users no ")
    by_console = IdentityProviderStore().get("demo", JAG)
    assert by_console is not None and (by_console.jwks_uri, by_console.jwks) == (f"{JAG}/keys", ())
    # The command, asked the same, finds nothing else to change.
    status, said = cli("update", "--tenant", "demo", "--issuer", JAG, "--jwks-uri", f"{JAG}/keys", "--user-match",
                       "sub", "--no-create-users")
    assert status == 0 and re.search(rf"^jwks_uri: +{JAG}/keys$", said, re.MULTILINE)
    assert IdentityProviderStore().get("demo", JAG) == by_console
    assert [(e["action"], e["outcome"], e["target"]["id"], e["details"]["fields"]) for e in audit_events()
            if e["action"].startswith("idp.")] == [
        ("idp.created", "success", JAG, ["create_users", "issuer", "keys", "user_match"]),
        ("idp.changed", "success", JAG, ["create_users", "keys", "user_match"])]
    assert '"kty"' not in repr(audit_events())

    # Offered for sign-in (`--protocol oidc`): its client needed, as the command needs it; then it is a sign-in IdP.
    for posted, why in [({"client_id": "authgate"}, "--client-id is for sign-in: give --protocol oidc too"),
                        ({"protocol": "oidc", "client_id": "authgate"},
                         "--protocol oidc needs --client-secret-file FILE (the client secret the IdP issued)")]:
        _, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", issuer=JAG)
        assert_console_error_page(post(invoke, jar, "/console/idp-update", {**hidden, "user_match": "sub", **posted}),
                                  "invalid_request", why, 400)
        argv = [part for k, v in posted.items() for part in (f"--{k.replace('_', '-')}", v)]
        assert cli("update", "--tenant", "demo", "--issuer", JAG, *argv) == (2, why)
    _, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", issuer=JAG)
    offered = post(invoke, jar, "/console/idp-update", {**hidden, "user_match": "sub", "protocol": "oidc",
                                                        "client_id": "authgate", "client_secret": SECRET,
                                                        "label": "Acme JAG", "domains": "jag.acme.example"})
    assert page_of(offered).text().startswith(
        f"{OLIVIA_BAR} Changed: Acme JAG (demo) Done: identity provider {JAG} of tenant demo changed. Identity provider "
        f"Protocol OpenID Connect Issuer {JAG} ID acme-jag Label Acme JAG Domains jag.acme.example Offered for sign-in "
        "yes Client ID authgate Client secret set Scopes openid email profile")
    assert SECRET not in offered["body"] and SECRET not in repr(audit_events())


@pytest.mark.parametrize(("fields", "argv", "message"), [
    ({}, (), "create needs --jwks-uri URL or --jwks-file FILE (the IdP's signing keys)"),
    ({"jwks_uri": "http://jag.acme.example/keys"}, ("--jwks-uri", "http://jag.acme.example/keys"),
     "--jwks-uri 'http://jag.acme.example/keys': "),
    ({"jwks": "{keys"}, ("--jwks-file", "{keys"), "the JWK Set is not JSON: "),
    ({"jwks": '{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}'}, ("--jwks-file", '{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}'),
     "the JWK Set: "),
    ({"jwks": '{"keys": []}', "jwks_uri": "https://jag.acme.example/keys"}, None,
     "give --jwks-uri or --jwks-file, not both"),
    ({"jwks_uri": "https://jag.acme.example/keys", "user_match": "name"}, None,
     "--user-match 'name' is not one of sub, email"),
])
def test_an_id_jag_issuer_the_command_refuses_is_refused_with_its_words(
        demo: Any, invoke: Invoke, audit_events: Any, tmp_path: Path, fields: dict[str, str],
        argv: tuple[str, ...] | None, message: str) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    refused = create(invoke, operator_session(), "idjag", issuer=JAG, **fields)
    assert refused["statusCode"] == 400
    detail = page_of(refused).text().split("Invalid request ", 1)[-1].split(" Error code:")[0]
    assert detail.startswith(message), detail
    assert_console_error_page(refused, "invalid_request", detail, 400)
    if argv is not None:  # the command's words, but for where the keys came from (its file, the form's field)
        if argv and argv[0] == "--jwks-file":
            key_file = tmp_path / "jwks.json"
            key_file.write_text(argv[1])
            argv, detail = ("--jwks-file", str(key_file)), detail.replace("the JWK Set", f"--jwks-file {str(key_file)!r}")
        assert cli("create", "--tenant", "demo", "--issuer", JAG, *argv) == (2, detail)
    assert [i.issuer for i in IdentityProviderStore().of_tenant("demo")] == [DEMO_IDP]
    assert [(e["action"], e["outcome"], e["reason"]) for e in audit_events() if e["action"].startswith("idp.")] == [
        ("idp.created", "failure", "invalid_input")]


def test_a_saml_idp_s_metadata_is_read_again_from_the_change_form_as_the_command_reads_it(
        demo: Any, invoke: Invoke, audit_events: Any, tmp_path: Path) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore
    from tests.saml_support import IDP_ENTITY_ID, metadata, signing_key

    cookie = operator_session()
    assert create(invoke, cookie, "saml", metadata=metadata().decode(), label="Acme SAML")["statusCode"] == 200
    asked, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", idp_id="acme-saml")
    assert (f"Change Acme SAML (demo) Label The sign-in button's text; empty: as it is. {ID_FIELD} Metadata URL Where the IdP "
            "publishes its SAML metadata (https), fetched now; or paste the metadata below. Now: given as a document. "
            "Empty: as it is. Metadata XML The IdP's EntityDescriptor, as it offers it for download. Domains") \
        in page_of(asked).text()
    renewed = metadata(keys=((signing_key("idp2"), "signing"),), slo="https://idp.democorp.example/slo").decode()
    changed = post(invoke, jar, "/console/idp-update", {**hidden, "metadata": renewed})
    assert changed["statusCode"] == 200 and page_headers(changed) == CONSOLE_PAGE_HEADERS
    assert ("Sign-on service https://idp.democorp.example/sso Logout service https://idp.democorp.example/slo "
            "NameID format") in page_of(changed).text()
    by_console = IdentityProviderStore().get("demo", IDP_ENTITY_ID)
    assert by_console is not None and by_console.saml["certificates"] == [signing_key("idp2").cert_pem]  # type: ignore[index]
    # `authgate idps update --metadata-file` reads the same document into the same record.
    document = tmp_path / "metadata.xml"
    document.write_text(renewed)
    assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, "--metadata-file", str(document))[0] == 0
    assert IdentityProviderStore().get("demo", IDP_ENTITY_ID) == by_console

    # Another IdP's metadata, or a URL and a document at once: the command's words; nothing changes.
    other = tmp_path / "other.xml"
    other.write_text(metadata(entity_id="https://other.example/saml").decode())
    why = ("--metadata-url and --metadata-file are for --protocol saml, with the IdP's own metadata (its entityID is "
           f"'https://other.example/saml', not '{IDP_ENTITY_ID}')")
    _, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", idp_id="acme-saml")
    assert_console_error_page(post(invoke, jar, "/console/idp-update", {**hidden, "metadata": other.read_text()}),
                              "invalid_request", why, 400)
    assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, "--metadata-file", str(other)) == (2, why)
    _, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", idp_id="acme-saml")
    assert_console_error_page(post(invoke, jar, "/console/idp-update", {
        **hidden, "metadata": renewed, "metadata_url": "https://idp.democorp.example/md"}), "invalid_request",
        "give --metadata-url or --metadata-file, not both", 400)
    assert IdentityProviderStore().get("demo", IDP_ENTITY_ID) == by_console
    assert [(e["outcome"], e.get("reason"), e["details"]["fields"]) for e in audit_events()
            if e["action"] == "idp.changed"] == [
        ("success", None, ["create_users", "no_domains", "saml", "trust_email", "trust_mfa"]),
        ("failure", "invalid_input", ["create_users", "no_domains", "saml", "trust_email", "trust_mfa"]),
        ("failure", "invalid_input", [])]


# What a SAML IdP's page shows of tests.saml_support's metadata, and what to register at it.
SAML_SHOWN = ("Sign-on service https://idp.democorp.example/sso Logout service - NameID format "
              "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent Metadata URL given as a document Certificate 1 "
              "SHA-256 ")
SAML_REGISTER = ("Register at the identity provider SP "
                 "entity ID (audience) http://127.0.0.1:3000/saml/demo Assertion Consumer Service (HTTP-POST) "
                 "http://127.0.0.1:3000/saml/demo/acs Single Logout Service (HTTP-Redirect) "
                 "http://127.0.0.1:3000/saml/demo/slo SP metadata http://127.0.0.1:3000/saml/demo/metadata")


def changing(invoke: Invoke, cookie: str, issuer: str, fields: dict[str, str]) -> dict[str, Any]:
    """The change form of the IdP `issuer` of demo, posted with `fields` beside its hidden ones."""
    _, jar, hidden = form(invoke, cookie, "/console/idp-update", tenant="demo", issuer=issuer)
    return post(invoke, jar, "/console/idp-update", {**hidden, **fields})


def refused_detail(result: dict[str, Any]) -> str:
    """The sentence of a 400 page, checked as the console's error page."""
    detail = page_of(result).text().split("Invalid request ", 1)[-1].split(" Error code:")[0]
    assert_console_error_page(result, "invalid_request", detail, 400)
    return detail


def made_saml(done: dict[str, Any], label: str, idp_id: str, domains: str, trust: str) -> Any:
    """The record a change made a SAML 2.0 sign-in provider (tests.saml_support's metadata), its answer page checked
    whole: what it shows of the metadata, `trust` (its keys to its claim mapping), what to register at it."""
    from authgate.stores.identity_providers import IdentityProviderStore
    from tests.saml_support import IDP_ENTITY_ID

    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    text = page_of(done).text()
    assert text.startswith(
        f"{OLIVIA_BAR} Changed: {label} (demo) Done: identity provider {IDP_ENTITY_ID} of tenant demo changed. "
        f"Identity provider Protocol SAML 2.0 Entity ID {IDP_ENTITY_ID} ID {idp_id} Label {label} Domains {domains} "
        f"Offered for sign-in yes {SAML_SHOWN}"), text
    assert f" {trust} Created " in text and text.endswith(f"{SAML_REGISTER} Open {label}"), text
    stored = IdentityProviderStore().get("demo", IDP_ENTITY_ID)
    assert stored is not None and (stored.protocol, stored.sign_in, stored.saml["entity_id"]) == (  # type: ignore[index]
        "saml", True, IDP_ENTITY_ID)
    return stored


@pytest.mark.slow  # over 0.5 s of CPU (a password hashed, keys made)
def test_an_id_jag_issuer_becomes_a_saml_sign_in_provider_as_the_command_makes_it(
        demo: Any, invoke: Invoke, audit_events: Any, tmp_path: Path) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore
    from tests.saml_support import IDP_ENTITY_ID, metadata

    store, cookie = IdentityProviderStore(), operator_session()
    keys_url = f"{IDP_ENTITY_ID}/keys"
    assert create(invoke, cookie, "idjag", issuer=IDP_ENTITY_ID, jwks_uri=keys_url)["statusCode"] == 200
    jag_only = store.get("demo", IDP_ENTITY_ID)
    assert jag_only is not None and (jag_only.protocol, jag_only.sign_in) == ("", False)
    asked = get(invoke, cookie, "/console/idp-update", tenant="demo", issuer=IDP_ENTITY_ID)
    assert ('<select id="protocol" name="protocol" aria-describedby="protocol-hint">\n<option value="" selected>No: '
            'ID-JAGs only</option>\n<option value="oidc">OpenID Connect</option>\n<option value="saml">SAML 2.0'
            '</option>\n</select>') in asked["body"]
    assert '<textarea id="metadata" name="metadata"' in asked["body"]

    # What the command refuses, refused with its words (`authgate idps update --protocol saml ...`); nothing changes.
    ours, other = tmp_path / "metadata.xml", tmp_path / "other.xml"
    ours.write_text(metadata().decode())
    other.write_text(metadata(entity_id="https://other.example/saml").decode())
    cases: list[tuple[dict[str, str], list[str], str]] = [
        ({}, [], "--protocol saml needs --metadata-url URL or --metadata-file FILE (the IdP's SAML metadata)"),
        ({"metadata": other.read_text()}, ["--metadata-file", str(other)],
         ("--metadata-url and --metadata-file are for --protocol saml, with the IdP's own metadata (its entityID is "
          f"'https://other.example/saml', not '{IDP_ENTITY_ID}')")),
        ({"metadata_url": "https://10.0.0.1/saml/metadata"}, ["--metadata-url", "https://10.0.0.1/saml/metadata"],
         "--metadata-url 'https://10.0.0.1/saml/metadata': "),
    ]
    for posted, argv, why in cases:
        detail = refused_detail(changing(invoke, cookie, IDP_ENTITY_ID, {"protocol": "saml", "user_match": "sub",
                                                                         **posted}))
        assert detail.startswith(why), detail
        assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, "--protocol", "saml", *argv) == (2, detail)
    assert refused_detail(changing(invoke, cookie, IDP_ENTITY_ID, {"protocol": "ldap", "user_match": "sub"})) == \
        "--protocol 'ldap' is not one of oidc, saml"
    assert store.get("demo", IDP_ENTITY_ID) == jag_only

    # Support may not, whatever the form says.
    grant("sam", "support", "demo")
    sam = operator_session("sam", "usr_sam")
    home = get(invoke, sam, "/console/people", tenant="demo")
    jar = f"{sam}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    assert_console_error_page(post(invoke, jar, "/console/idp-update", {
        **page_of(home).hidden(), "tenant": "demo", "issuer": IDP_ENTITY_ID, "protocol": "saml",
        "metadata": ours.read_text()}), "operator_forbidden",
        "Your roles (support (demo)) do not allow this in tenant demo.", 403)
    assert store.get("demo", IDP_ENTITY_ID) == jag_only

    # Its metadata pasted: a SAML 2.0 sign-in provider, as the command makes it from the same document.
    done = changing(invoke, cookie, IDP_ENTITY_ID, {"protocol": "saml", "metadata": ours.read_text(),
                                                    "label": "Acme SAML", "domains": "acme.example",
                                                    "user_match": "sub"})
    by_console = made_saml(done, "Acme SAML", "acme-saml", "acme.example",
                           f"Keys {keys_url} User match sub Create users no Trust email no Trust MFA no Step-up local "
                           "Claim mapping the defaults")
    assert (by_console.idp_id, by_console.jwks_uri) == ("acme-saml", keys_url)
    store.update(jag_only)
    assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, "--protocol", "saml", "--metadata-file",
               str(ours), "--label", "Acme SAML", "--domain", "acme.example", "--user-match", "sub",
               "--no-create-users")[0] == 0
    assert store.get("demo", IDP_ENTITY_ID) == by_console
    events = [(e["outcome"], e.get("reason"), e["target"]["id"], e["details"]["fields"]) for e in audit_events()
              if e["action"] == "idp.changed"]
    assert events == [
        ("failure", "invalid_input", IDP_ENTITY_ID, ["create_users", "protocol", "user_match"]),
        ("failure", "invalid_input", IDP_ENTITY_ID, ["create_users", "protocol", "saml", "user_match"]),
        ("failure", "invalid_input", IDP_ENTITY_ID, []),
        ("failure", "invalid_input", IDP_ENTITY_ID, ["create_users", "protocol", "user_match"]),
        ("success", None, IDP_ENTITY_ID, ["create_users", "domains", "label", "protocol", "saml", "user_match"])]
    assert [e["details"]["roles"] for e in audit_events() if e["action"] == "idp.changed"] == ["owner"] * 5
    assert [(e["details"]["console_action"], e["tenant"]) for e in audit_events()
            if e["action"] == "console.refused"] == [("idps.change", "demo")]


def test_an_openid_provider_becomes_a_saml_idp_and_a_saml_idp_stays_one_as_with_the_command(
        demo: Any, invoke: Invoke, audit_events: Any, tmp_path: Path) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore
    from tests.saml_support import IDP_ENTITY_ID, metadata

    store, cookie = IdentityProviderStore(), operator_session()
    ours = tmp_path / "metadata.xml"
    ours.write_text(metadata().decode())
    assert create(invoke, cookie, **{**ACME, "issuer": IDP_ENTITY_ID})["statusCode"] == 200
    oidc = store.get("demo", IDP_ENTITY_ID)
    assert oidc is not None and oidc.protocol == "oidc"
    asked = get(invoke, cookie, "/console/idp-update", tenant="demo", issuer=IDP_ENTITY_ID)
    assert ('<option value="oidc" selected>OpenID Connect</option>\n<option value="saml">SAML 2.0</option>'
            in asked["body"])

    # Its metadata given without choosing SAML: the command's words; the protocol as it is: nothing else changes.
    why = "--metadata-url and --metadata-file are for --protocol saml"
    assert refused_detail(changing(invoke, cookie, IDP_ENTITY_ID, {"protocol": "oidc", "metadata": ours.read_text(),
                                                                   "step_up": "local"})) == why
    assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, "--metadata-file", str(ours)) == (2, why)
    assert store.get("demo", IDP_ENTITY_ID) == oidc

    done = changing(invoke, cookie, IDP_ENTITY_ID, {"protocol": "saml", "metadata": ours.read_text(),
                                                    "label": "Acme SSO", "client_id": "authgate",
                                                    "domains": "acme.example acme.test", "trust_mfa": "mfa",
                                                    "claims": "groups=roles", "step_up": "local"})
    by_console = made_saml(done, "Acme SSO", "acme-sso", "acme.example, acme.test",
                           "Keys discovery User match sub Create users no Trust email no Trust MFA mfa Step-up local "
                           "Claim mapping groups=roles")
    assert by_console.client_id == "authgate"  # kept, as the command keeps it
    store.update(oidc)
    assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, "--protocol", "saml", "--metadata-file",
               str(ours))[0] == 0
    assert store.get("demo", IDP_ENTITY_ID) == by_console

    assert [(e["outcome"], e.get("reason"), e["details"]["fields"]) for e in audit_events()
            if e["action"] == "idp.changed"] == [
        ("failure", "invalid_input", ["create_users", "no_domains", "saml", "step_up", "trust_email", "trust_mfa"]),
        ("success", None, ["claims", "client_id", "create_users", "domains", "label", "protocol", "saml", "step_up",
                           "trust_email", "trust_mfa"])]


@pytest.mark.slow  # over 0.5 s of CPU (a password hashed, keys made)
def test_a_saml_idp_becomes_an_openid_provider_relinking_its_people_as_the_command_does(
        demo: Any, invoke: Invoke, audit_events: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity
    from tests.saml_support import IDP_ENTITY_ID, metadata

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    store, links, cookie = IdentityProviderStore(), LinkedIdentityStore(), operator_session()
    assert create(invoke, cookie, "saml", metadata=metadata().decode(), label="Acme SAML",
                  domains="acme.example")["statusCode"] == 200
    saml = store.get("demo", IDP_ENTITY_ID)
    assert saml is not None and saml.protocol == "saml"
    asked = get(invoke, cookie, "/console/idp-update", tenant="demo", issuer=IDP_ENTITY_ID)
    assert asked["statusCode"] == 200 and page_headers(asked) == CONSOLE_PAGE_HEADERS
    assert page_of(asked).text().endswith(
        f"{ID_JAG_FIELDS.format(kept='Now: discovery. Empty: as it is.')} Protocol Signs people in by SAML 2.0 OpenID "
        "Connect OpenID Connect: it signs people in by OpenID Connect from now on, with the client below (its issuer "
        f"is {IDP_ENTITY_ID}; its metadata is dropped). Client ID OpenID Connect: the client the IdP registered for "
        "authgate. Client secret The client secret the IdP issued; sealed before it is stored, never shown. Scopes "
        f"OpenID Connect: what a sign-in asks for; empty: openid email profile. {RELINK_FIELD} Save Cancel"), \
        page_of(asked).text()
    assert ('<option value="saml" selected>SAML 2.0</option>\n<option value="oidc">OpenID Connect</option>'
            in asked["body"])
    carol = UserStore().put_hash("demo", "carol", "!", email="carol@acme.example", email_verified=True)
    saml_link = LinkedIdentity("demo", IDP_ENTITY_ID, "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent|c-1",
                               carol.user_id, "carol", 1, "proof")
    links.link(saml_link)

    # What the command refuses, refused with its words (exit 2 for bad input, 1 while people are linked).
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    client = {"protocol": "oidc", "client_id": "authgate", "client_secret": SECRET}
    argv = ("--protocol", "oidc", "--client-id", "authgate", "--client-secret-file", str(secret_file))
    linked_words = (f"{IDP_ENTITY_ID} has 1 linked identity, each named by a SAML NameID, which an OpenID Connect sub "
                    "does not match: give --relink-by-email (with --trust-email) to remove them and link each person "
                    "again by their verified email at their next sign-in")
    cases: list[tuple[dict[str, str], tuple[str, ...], int, str]] = [
        ({"protocol": "oidc"}, ("--protocol", "oidc"), 2,
         "--protocol oidc needs --client-id (the client the IdP registered for authgate)"),
        ({**client, "metadata": metadata().decode()}, (*argv, "--metadata-file", str(tmp_path / "md.xml")), 2,
         "--metadata-url and --metadata-file are for --protocol saml"),
        (client, argv, 1, linked_words),
        ({**client, "relink_by_email": "yes"}, (*argv, "--relink-by-email"), 2,
         "--relink-by-email links people again by their verified email: give --trust-email too"),
        ({"label": "Acme", "relink_by_email": "yes"}, ("--label", "Acme", "--relink-by-email"), 2,
         "--relink-by-email is for a change of --protocol between oidc and saml"),
    ]
    (tmp_path / "md.xml").write_bytes(metadata())
    for posted, flags, status, why in cases:
        assert refused_detail(changing(invoke, cookie, IDP_ENTITY_ID, {"step_up": "local", **posted})) == why
        assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, *flags) == (status, why)
    assert (store.get("demo", IDP_ENTITY_ID), links.of_issuer("demo", IDP_ENTITY_ID)) == (saml, (saml_link,))

    # Support may not, whatever the form says.
    grant("sam", "support", "demo")
    sam = operator_session("sam", "usr_sam")
    home = get(invoke, sam, "/console/people", tenant="demo")
    jar = f"{sam}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    assert_console_error_page(post(invoke, jar, "/console/idp-update", {
        **page_of(home).hidden(), "tenant": "demo", "issuer": IDP_ENTITY_ID, **client, "trust_email": "yes",
        "relink_by_email": "yes"}), "operator_forbidden", "Your roles (support (demo)) do not allow this in tenant demo.",
        403)
    assert (store.get("demo", IDP_ENTITY_ID), links.of_issuer("demo", IDP_ENTITY_ID)) == (saml, (saml_link,))

    # Asked to link people again, with the IdP trusted for verified emails: an OpenID Provider, the same IdP.
    done = changing(invoke, cookie, IDP_ENTITY_ID, {**client, "trust_email": "yes", "relink_by_email": "yes",
                                                    "label": "Acme SAML", "domains": "acme.example",
                                                    "step_up": "local"})
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    text = page_of(done).text()
    assert text.startswith(
        f"{OLIVIA_BAR} Changed: Acme SAML (demo) Done: identity provider {IDP_ENTITY_ID} of tenant demo changed. "
        f"Identity provider Protocol OpenID Connect Issuer {IDP_ENTITY_ID} ID acme-saml Label Acme SAML Domains "
        "acme.example Offered for sign-in yes Client ID authgate Client secret set Scopes openid email profile Keys "
        "discovery User match sub Create users no Trust email yes Trust MFA no Step-up local Claim mapping the "
        "defaults Created "), text
    assert text.endswith(
        " UTC Register at the identity provider Redirect URI http://127.0.0.1:3000/oauth/federation/callback "
        "Post-logout redirect URI http://127.0.0.1:3000/oauth/federation/logged-out Back-channel logout URI "
        "http://127.0.0.1:3000/oauth/federation/demo/acme-saml/backchannel-logout Open Acme SAML"), text
    assert SECRET not in done["body"]
    by_console = store.get("demo", IDP_ENTITY_ID)
    assert by_console is not None
    assert (by_console.protocol, by_console.idp_id, by_console.saml, by_console.client_id, by_console.trust_email) == (
        "oidc", "acme-saml", None, "authgate", True)
    assert links.of_issuer("demo", IDP_ENTITY_ID) == () and UserStore().get("demo", "carol") == carol

    # The command makes the same record of the same SAML IdP (its secret sealed anew).
    store.update(saml)
    links.link(saml_link)
    assert cli("update", "--tenant", "demo", "--issuer", IDP_ENTITY_ID, *argv, "--trust-email",
               "--relink-by-email")[0] == 0
    by_command = store.get("demo", IDP_ENTITY_ID)
    assert by_command is not None and by_command._replace(client_secret="") == by_console._replace(client_secret="")
    assert links.of_issuer("demo", IDP_ENTITY_ID) == ()
    events = [(e["outcome"], e.get("reason"), e["details"]["fields"], e["details"]["roles"]) for e in audit_events()
              if e["action"] == "idp.changed"]
    refused = ["client_id", "client_secret", "create_users", "no_domains", "protocol", "step_up", "trust_email",
               "trust_mfa"]
    assert events == [
        ("failure", "invalid_input", ["create_users", "no_domains", "protocol", "step_up", "trust_email", "trust_mfa"],
         "owner"),
        ("failure", "invalid_input", sorted([*refused, "saml"]), "owner"),
        ("failure", "refused", refused, "owner"),
        ("failure", "invalid_input", sorted([*refused, "relink_by_email"]), "owner"),
        ("failure", "invalid_input", ["create_users", "label", "no_domains", "relink_by_email", "step_up", "trust_email",
                                      "trust_mfa"], "owner"),
        ("success", None, ["client_id", "client_secret", "create_users", "domains", "label", "protocol",
                           "relink_by_email", "step_up", "trust_email", "trust_mfa"], "owner")]
    assert [(e["details"]["console_action"], e["tenant"]) for e in audit_events()
            if e["action"] == "console.refused"] == [("idps.change", "demo")]
    assert SECRET not in repr(audit_events())
