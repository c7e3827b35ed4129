"""What only an owner does to people in the console (docs/console.md): New person, Edit, Set a temporary password,
Delete, a consent's Withdraw, an identity's Unlink. Each is `authgate users`' own implementation (authgate.people),
so the page says the command's words, refuses for the command's reasons, and is the command's audit event by the
operator naming their roles; support and the auditor get the 403 page whatever they send, and never see a password
field or a password.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any
from urllib.parse import urlencode

import pytest

from authgate.administration.input import InvalidInput
from authgate.clock import ManualClock
from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    BAR,
    CONSOLE_PAGE_HEADERS,
    FORM,
    OLIVIA,
    ORIGIN,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    page_headers,
    whole,
)

Invoke = Any
OWNER = BAR.format(who="olivia (owner)")
BOB = "usr_demobob000000000000000"
OKTA = "https://acme.okta.example"


def get(invoke: Invoke, cookie: str, page: str, **query: str) -> tuple[dict[str, Any], str]:
    """A console page, and the Cookie header that posts its form (the session and the binding)."""
    result = invoke("console", console_event("GET", f"/console/{page}", urlencode(query), cookie=cookie))
    binding = [c.split(";", 1)[0] for c in result["multiValueHeaders"].get("Set-Cookie", [])]
    return result, "; ".join([cookie, *binding])


def post(invoke: Invoke, jar: str, page: str, fields: dict[str, str]) -> dict[str, Any]:
    return invoke("console", console_event("POST", f"/console/{page}", cookie=jar, body=urlencode(fields).encode(),
                                           content_type=FORM))


def shown(result: dict[str, Any]) -> str:
    """The whole text of a console page, once its status and headers are those of a page."""
    assert result["statusCode"] == 200, result["body"][-600:]
    assert page_headers(result) == CONSOLE_PAGE_HEADERS
    return page_of(result).text()


def form_of(result: dict[str, Any], **typed: str) -> dict[str, str]:
    """What a browser posts from the page's own form (not the sign-out's): its fields as given, and `typed`."""
    page = page_of(result)
    fields = {str(i["name"]): str(i.get("value") or "") for i in page.inputs if i.get("name")}
    selects = dict(re.findall(r'<select id="[^"]*" name="([^"]+)">.*?<option value="([^"]*)" selected',
                              result["body"], re.DOTALL))
    return {**fields, **selects, **typed}


def users(argv: list[str], stdin: str = "", *, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`authgate users ...` on this stack: (exit status, what it printed on stdout, else its refusal without the
    "authgate users: " it starts with)."""
    from authgate_cli.admin import users as users_command
    from authgate_cli.main import build_parser

    args = build_parser(["users", *argv]).parse_args(["users", *argv])
    capsys.readouterr()
    try:
        users_command._validate(args)
    except InvalidInput as exc:  # the command's own refusal before it acts
        return 2, str(exc)
    out = io.StringIO()
    action = users_command.ACTIONS[args.users_command]
    status = action(args, out, io.StringIO(stdin)) if argv[0] in ("create", "reset-password") else action(args, out)
    return status, out.getvalue() or capsys.readouterr().err.removeprefix("authgate users: ").rstrip("\n")


def stored_hash(username: str) -> str:
    """The password hash demo's `username` holds, as the table keeps it."""
    import boto3

    from authgate.stores.user_items import key

    item = boto3.client("dynamodb").get_item(TableName="UsersTable", Key=key("demo", username))["Item"]
    return str(item["password_hash"]["S"])


@pytest.mark.slow  # over 0.5 s of CPU (a password hashed, keys made)
def test_olivia_creates_a_person_and_the_page_says_what_the_command_says(
        demo: Any, invoke: Invoke, audit_events: Any, log_lines: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.users import UserStore
    from authgate.users.passwords import check_password

    cookie = operator_session()
    people = shown(invoke("console", console_event("GET", "/console/people", "tenant=demo", cookie=cookie)))
    assert people.startswith(f"{OWNER} People New person Tenant")
    form, jar = get(invoke, cookie, "person-new", tenant="demo")
    assert shown(form) == (
        f"{OWNER} New person Tenant acme demo operators Username Name Email Email verified No Yes Password (at least 8 "
        "characters; not the username) Create Cancel")
    assert [f.get("action") for f in page_of(form).forms] == ["http://127.0.0.1:3000/console/sign-out",
                                                              "http://127.0.0.1:3000/console/person-new"]
    assert [(i["name"], i["type"], i.get("autocomplete")) for i in page_of(form).inputs if i["type"] != "hidden"] == [
        ("username", "text", "off"), ("name", "text", "off"), ("email", "email", "off"),
        ("password", "password", "new-password")]
    fields = form_of(form, username="dana", name="Dana Example", email="dana@demo.example", email_verified="yes",
                     password="dana-first-password")
    done = post(invoke, jar, "person-new", fields)
    said = "user dana created in tenant demo"
    assert shown(done) == f"{OWNER} New person: dana (demo) Done: {said}. Go to dana"
    dana = UserStore().get("demo", "dana")
    assert dana is not None and (dana.name, dana.email, dana.email_verified, dana.must_change_password) == (
        "Dana Example", "dana@demo.example", True, False)
    assert check_password("dana-first-password", stored_hash("dana"))
    assert whole(audit_events(), "user.created") == {
        "tenant": "demo", "actor": OLIVIA, "action": "user.created", "target": {"type": "user", "id": dana.user_id},
        "outcome": "success", **ORIGIN,
        "details": {"username": "dana", "via": "console", "console_action": "create", "roles": "owner"}}
    assert "dana-first-password" not in json.dumps(log_lines())
    assert users(["create", "--tenant", "demo", "--username", "erin", "--password-stdin"], "erin-password-1\n",
                 capsys=capsys) == (0, "user erin created in tenant demo\n")


@pytest.mark.parametrize(("typed", "argv"), [
    ({"email": "not-an-email"}, ["--email", "not-an-email"]),
    ({"password": "short"}, []),
    ({"password": "dana"}, []),
    ({"name": " Dana"}, ["--name", " Dana"]),
    ({"username": "da\u200bna"}, []),
    ({"email": "bob@demo.example"}, ["--email", "bob@demo.example"]),
    ({"email": "", "email_verified": "yes"}, ["--email-verified"]),
])
def test_a_creation_is_refused_for_the_commands_reason_in_its_words(
        demo: Any, invoke: Invoke, capsys: pytest.CaptureFixture[str], typed: dict[str, str], argv: list[str]) -> None:
    from authgate.stores.users import UserStore

    fields = {"username": "dana", "name": "", "email": "", "email_verified": "no", "password": "long-enough-1",
              **typed}
    form, jar = get(invoke, operator_session(), "person-new", tenant="demo")
    refused = post(invoke, jar, "person-new", form_of(form, **fields))
    status, reason = users(["create", "--tenant", "demo", "--username", fields["username"], "--password-stdin", *argv],
                           fields["password"] + "\n", capsys=capsys)
    assert status == 2 and reason
    assert_console_error_page(refused, "invalid_request", reason, 400)
    assert UserStore().get("demo", fields["username"]) is None


def test_a_username_the_tenant_has_is_refused_and_bob_is_kept(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.users import UserStore

    form, jar = get(invoke, operator_session(), "person-new", tenant="demo")
    refused = post(invoke, jar, "person-new", form_of(form, username="bob", password="long-enough-1"))
    assert_console_error_page(refused, "invalid_request", "user 'bob' already exists in tenant 'demo'", 400)
    assert UserStore().get("demo", "bob").name == "Bob Example"  # type: ignore[union-attr]


def test_olivia_edits_a_profile_and_the_page_says_what_the_command_says(
        demo: Any, invoke: Invoke, audit_events: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.users import UserStore

    cookie = operator_session()
    person = shown(invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob",
                                                   cookie=cookie)))
    assert "Actions Edit Disable" in person
    form, jar = get(invoke, cookie, "person-edit", tenant="demo", username="bob")
    assert shown(form) == (
        f"{OWNER} Edit: bob (demo) A new email is not verified unless you say it is. Leave a field empty to remove it. "
        "Name Email Email verified No Yes Save Cancel")
    assert form_of(form) == {**form_of(form), "tenant": "demo", "username": "bob", "name": "Bob Example",
                             "email": "bob@demo.example", "email_verified": "yes"}
    done = post(invoke, jar, "person-edit", form_of(form, name="Robert Example", email="robert@demo.example",
                                                    email_verified="no"))
    said = "user bob updated in tenant demo"
    assert shown(done) == f"{OWNER} Edit: bob (demo) Done: {said}. Back to bob"
    bob = UserStore().get("demo", "bob")
    assert bob is not None and (bob.name, bob.email, bob.email_verified) == ("Robert Example", "robert@demo.example",
                                                                            False)
    assert whole(audit_events(), "user.changed") == {
        "tenant": "demo", "actor": OLIVIA, "action": "user.changed", "target": {"type": "user", "id": BOB},
        "outcome": "success", **ORIGIN,
        "details": {"username": "bob", "via": "console", "console_action": "update", "roles": "owner"}}
    removed = post(invoke, jar, "person-edit", form_of(form, name=""))
    assert "Done: user bob updated in tenant demo." in shown(removed)
    assert UserStore().get("demo", "bob").name == ""  # type: ignore[union-attr]
    refused = post(invoke, jar, "person-edit", form_of(form, email="alice@demo.example"))
    assert_console_error_page(refused, "invalid_request", users(
        ["update", "--tenant", "demo", "--username", "bob", "--email", "alice@demo.example"], capsys=capsys)[1], 400)
    assert users(["update", "--tenant", "demo", "--username", "bob", "--name", "Bob"], capsys=capsys) == (0, said + "\n")


def asked(invoke: Invoke, cookie: str, action: str, username: str = "bob", **named: str) -> tuple[dict[str, Any], str]:
    """The confirmation page of `action` on `username` of demo (`named`: the client or IdP it names)."""
    return get(invoke, cookie, "act", tenant="demo", username=username, action=action, **named)


@pytest.mark.slow  # over 0.5 s of CPU (a password hashed, keys made)
def test_a_temporary_password_is_shown_once_and_never_logged_nor_recorded(
        demo: Any, invoke: Invoke, audit_events: Any, log_lines: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore
    from authgate.users.passwords import check_password

    SessionStore().create(tenant_id="demo", user_id=BOB, username="bob", acr="mfa", amr=("pwd", "otp", "mfa"),
                          generation=0)
    cookie = operator_session()
    confirm, jar = asked(invoke, cookie, "reset-password")
    assert shown(confirm) == (
        f"{OWNER} Set a temporary password: bob (demo)? A new password is made for bob and shown to you once, on the "
        "next page, to hand on to them; they must change it at their next sign-in. The password they had stops "
        "working, and their sessions and refresh tokens end now. Set a temporary password Cancel")
    done = post(invoke, jar, "act", page_of(confirm).hidden())
    said = ("user bob given a temporary password (changed at the next sign-in; its sessions and refresh tokens end "
            "now) in tenant demo")
    text = shown(done)
    password = re.fullmatch(
        re.escape(f"{OWNER} Set a temporary password: bob (demo) Done: {said}. The temporary password ") + r"(\S{22})"
        + re.escape(" Hand it on to bob: it is shown this once, and they choose their own at their next sign-in. "
                    "Back to bob"), text)
    assert password is not None, text
    temporary = password.group(1)
    assert headers_of(done)["Cache-Control"] == "no-store"
    bob = UserStore().get("demo", "bob")
    assert bob is not None and bob.must_change_password
    assert check_password(temporary, stored_hash("bob"))
    assert SessionStore().standing(bob) == []
    assert whole(audit_events(), "password.reset") == {
        "tenant": "demo", "actor": OLIVIA, "action": "password.reset", "target": {"type": "user", "id": BOB},
        "outcome": "success", **ORIGIN,
        "details": {"username": "bob", "via": "console", "console_action": "reset-password", "roles": "owner"}}
    assert temporary not in json.dumps(log_lines()) and temporary not in json.dumps(audit_events())
    again = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob", cookie=cookie))
    assert temporary not in again["body"] and "must change the password" in shown(again)
    assert users(["reset-password", "--tenant", "demo", "--username", "bob", "--password-stdin"],
                 "another-password-1\n", capsys=capsys) == (0, said + "\n")


def test_olivia_deletes_a_person_after_a_confirmation_that_says_what_is_lost(
        demo: Any, invoke: Invoke, audit_events: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.users import UserStore
    from authgate.users.passkeys import Passkey

    PasskeyStore().add(Passkey("cred-1", "demo", "bob", "cose", 0, "Phone", 1))
    cookie = operator_session()
    confirm, jar = asked(invoke, cookie, "delete")
    assert shown(confirm) == (
        f"{OWNER} Delete: bob (demo)? bob is removed with everything kept about them: their profile (name and email), "
        "password, second factors and passkeys, and linked identities. Their sessions and refresh tokens end now. This "
        "cannot be undone: a person created again under the name is someone new. Delete Cancel")
    done = post(invoke, jar, "act", page_of(confirm).hidden())
    said = "user bob deleted from tenant demo (its sessions and refresh tokens end now)"
    assert shown(done) == f"{OWNER} Delete: bob (demo) Done: {said}. Back to the people of demo"
    assert UserStore().get("demo", "bob") is None and PasskeyStore().of_user("demo", "bob") == ()
    assert whole(audit_events(), "user.deleted") == {
        "tenant": "demo", "actor": OLIVIA, "action": "user.deleted", "target": {"type": "user", "id": BOB},
        "outcome": "success", **ORIGIN,
        "details": {"username": "bob", "via": "console", "console_action": "delete", "roles": "owner"}}
    replayed = post(invoke, jar, "act", page_of(confirm).hidden())
    assert_console_error_page(replayed, "not_found", "There is no person 'bob' in tenant 'demo'.", 404)
    UserStore().put_hash("demo", "bob", "not-a-password-hash", overwrite=False)
    assert users(["delete", "--tenant", "demo", "--username", "bob"], capsys=capsys) == (0, said + "\n")


def test_olivia_withdraws_a_consent_and_the_page_says_what_the_command_says(
        demo: Any, invoke: Invoke, audit_events: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate import clock
    from authgate.stores.consents import ConsentStore
    from authgate.stores.revocations import RevocationStore

    ConsentStore().remember("demo", BOB, "demo-web", ("openid", "charges:read"), None)
    ConsentStore().db.transact_write_items(TransactItems=[ConsentStore().grant_write("demo", BOB, "demo-web", "g-1")])
    ConsentStore().remember("demo", BOB, "demo-agent", ("mcp:read",), "https://mcp.example")
    cookie = operator_session()
    person = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob", cookie=cookie))
    assert shown(person).endswith(
        "Consents 2 remembered consents Client Scopes Action demo-agent mcp:read (for https://mcp.example) Withdraw "
        "demo-web charges:read openid Withdraw Recent events No event of the last 24 hours names bob. Every event "
        "of bob")
    assert ('<a href="http://127.0.0.1:3000/console/act?tenant=demo&amp;username=bob&amp;action=revoke-consent&amp;'
            'client=demo-web">Withdraw</a>') in person["body"]
    confirm, jar = asked(invoke, cookie, "revoke-consent", client="demo-web")
    assert shown(confirm) == (
        f"{OWNER} Withdraw: bob (demo)? bob's consent for the client demo-web is withdrawn and every grant made under "
        "it revoked: the client's refresh tokens are refused, and it asks bob for consent again at its next "
        "authorization request. Withdraw Cancel")
    assert {k: v for k, v in page_of(confirm).hidden().items() if k not in ("nonce", "csrf")} == {
        "tenant": "demo", "username": "bob", "action": "revoke-consent", "client": "demo-web"}
    done = post(invoke, jar, "act", page_of(confirm).hidden())
    said = "consent of bob in tenant demo for client demo-web withdrawn; 1 grant revoked"
    assert shown(done) == f"{OWNER} Withdraw: bob (demo) Done: {said}. Back to bob"
    assert RevocationStore().is_revoked("any-jti", "g-1", clock.seconds())  # the grant's tokens are refused
    assert [c.client_id for c in ConsentStore().of_user("demo", BOB)] == ["demo-agent"]
    assert whole(audit_events(), "consent.revoked") == {
        "tenant": "demo", "actor": OLIVIA, "action": "consent.revoked", "target": {"type": "user", "id": BOB},
        "outcome": "success", **ORIGIN, "details": {"username": "bob", "via": "console",
                                                    "console_action": "revoke-consent", "roles": "owner",
                                                    "client_id": "demo-web"}}
    assert_console_error_page(post(invoke, jar, "act", page_of(confirm).hidden()), "not_found",
                              "user 'bob' of tenant 'demo' has not allowed client 'demo-web'", 404)
    ConsentStore().db.transact_write_items(TransactItems=[ConsentStore().grant_write("demo", BOB, "demo-web", "g-2")])
    assert users(["revoke-consent", "--tenant", "demo", "--username", "bob", "--client", "demo-web"],
                 capsys=capsys) == (0, said + "\n")


@pytest.mark.parametrize(("client", "status", "code", "detail"), [
    ("demo web", 400, "invalid_request",
     "--client 'demo web' must be printable ASCII without spaces or control characters"),
    ("nosuch", 404, "not_found", "no client 'nosuch'"),
    ("", 400, "invalid_request", "--client must not be empty"),
])
def test_a_withdrawal_naming_no_client_of_the_person_is_refused(demo: Any, invoke: Invoke, client: str, status: int,
                                                                code: str, detail: str) -> None:
    confirm, jar = asked(invoke, operator_session(), "revoke-consent", client="demo-web")
    assert_console_error_page(post(invoke, jar, "act", {**page_of(confirm).hidden(), "client": client}), code, detail,
                              status)
    if status == 400:
        assert_console_error_page(asked(invoke, jar, "revoke-consent", client=client)[0], code, detail, status)


def link_bob(issuer: str, subject: str) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity

    LinkedIdentityStore().link(LinkedIdentity("demo", issuer, subject, BOB, "bob", 1_750_000_000, "proof"))


def test_olivia_unlinks_an_identity_and_the_page_says_what_the_command_says(
        demo: Any, invoke: Invoke, audit_events: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore

    link_bob(OKTA, "00u1")
    cookie = operator_session()
    person = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob", cookie=cookie))
    assert (f"Linked identities 1 linked identity Identity provider Subject Linked Action {OKTA} 00u1 "
            "2025-06-15 15:06:40 UTC (proof) Unlink Consents") in shown(person)
    confirm, jar = asked(invoke, cookie, "unlink", idp=OKTA)
    assert shown(confirm) == (
        f"{OWNER} Unlink: bob (demo)? bob's identity at {OKTA} is removed: it signs in as nobody until it is linked "
        "again. Unlink Cancel")
    done = post(invoke, jar, "act", page_of(confirm).hidden())
    said = f"identity 00u1 of {OKTA} unlinked from user bob in tenant demo"
    assert shown(done) == f"{OWNER} Unlink: bob (demo) Done: {said}. Back to bob"
    assert LinkedIdentityStore().of_user(BOB) == ()
    assert whole(audit_events(), "identity.unlinked") == {
        "tenant": "demo", "actor": OLIVIA, "action": "identity.unlinked", "target": {"type": "user", "id": BOB},
        "outcome": "success", **ORIGIN, "details": {"username": "bob", "via": "console", "console_action": "unlink",
                                                    "roles": "owner", "idp": OKTA}}
    assert_console_error_page(post(invoke, jar, "act", page_of(confirm).hidden()), "not_found",
                              f"user 'bob' of tenant 'demo' has no identity linked at '{OKTA}'", 404)
    link_bob(OKTA, "00u1")
    assert users(["unlink", "--tenant", "demo", "--username", "bob", "--idp", OKTA], capsys=capsys) == (0, said + "\n")


OWNER_PAGES = [("person-new", {"tenant": "demo"}), ("person-edit", {"tenant": "demo", "username": "bob"}),
               *(("act", {"tenant": "demo", "username": "bob", "action": action, **named})
                 for action, named in (("reset-password", {}), ("delete", {}),
                                       ("revoke-consent", {"client": "demo-web"}), ("unlink", {"idp": OKTA})))]


@pytest.mark.parametrize(("who", "roles"), [("sam", ("support", "demo")), ("audrey", ("auditor",))])
def test_support_and_the_auditor_get_the_403_page_for_each_whatever_they_send(
        demo: Any, invoke: Invoke, audit_events: Any, clock: ManualClock, who: str, roles: tuple[str, ...]) -> None:
    from authgate.stores.consents import ConsentStore
    from authgate.stores.users import UserStore

    ConsentStore().remember("demo", BOB, "demo-web", ("openid",), None)
    link_bob(OKTA, "00u1")
    grant(who, *roles)
    described = "support (demo)" if who == "sam" else "auditor"
    cookie = operator_session(who, f"usr_{who}")
    person = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob", cookie=cookie))
    text = shown(person)
    for offered in ("Edit", "Set a temporary password", "Delete", "Withdraw", "Unlink", "Action "):
        assert offered not in text, offered
    assert 'type="password"' not in person["body"]
    people = shown(invoke("console", console_event("GET", "/console/people", "tenant=demo", cookie=cookie)))
    assert "New person" not in people
    refusal = f"Your roles ({described}) do not allow this in tenant demo."
    # A form of this browser (a valid CSRF token: the person page's sign-out), made to say what the owner's do.
    jar = f"{cookie}; {headers_of(person)['Set-Cookie'].split(';', 1)[0]}"
    csrf = page_of(person).hidden()
    before = UserStore().get("demo", "bob")
    for page, query in OWNER_PAGES:
        assert_console_error_page(get(invoke, jar, page, **query)[0], "operator_forbidden", refusal, 403)
        forged = {**csrf, **query, "username": query.get("username", "mallory"), "password": "forged-password-1",
                  "name": "Forged"}
        assert_console_error_page(post(invoke, jar, page, forged), "operator_forbidden", refusal, 403)
    assert UserStore().get("demo", "bob") == before and UserStore().get("demo", "mallory") is None
    assert [c.client_id for c in ConsentStore().of_user("demo", BOB)] == ["demo-web"]
    refused = [e["details"]["console_action"] for e in audit_events() if e["action"] == "console.refused"]
    assert refused == [rule for rule in ("people.create", "people.update", "people.reset_password", "people.delete",
                                         "people.revoke_consent", "people.unlink") for _ in range(2)]
    assert {e["action"] for e in audit_events()} == {"console.refused"}
