"""admin.users against moto: every action, its JSON and text views, and its one-line refusals."""

from __future__ import annotations

import io
import json

import pytest

from tests.unit.admin.users_arguments import user_args


@pytest.fixture
def bob(aws: None) -> None:
    """The demo tenant and its user bob (seeded: no scrypt of its own to pay for)."""
    from authgate_cli.local.loaders import tenants, users

    tenants([{"tenant_id": "demo", "currencies": ["usd"]}])
    users([{"tenant_id": "demo", "username": "bob", "password": "bob-password-1", "user_id": "usr_bob",
            "name": "Bob", "email": "Bob@Demo.example", "email_verified": True}])


def run(action: str, **kwargs: object) -> tuple[int, str]:
    from authgate_cli.admin.users import ACTIONS

    out = io.StringIO()
    status = ACTIONS[action](user_args(action, **kwargs), out)
    return status, out.getvalue()


@pytest.mark.usefixtures("bob")
def test_show_and_list_never_print_the_password_hash() -> None:
    status, shown = run("show", json=True)
    assert status == 0
    created = json.loads(shown)["created_at"]
    assert json.loads(shown) == {"tenant_id": "demo", "username": "bob", "failed_logins": 0, "locked_until": 0,
                                 "user_id": "usr_bob", "name": "Bob", "email": "Bob@Demo.example",
                                 "email_verified": True, "disabled": False, "must_change_password": False,
                                 "sessions_valid_after": 0, "created_at": created, "updated_at": created,
                                 "session_generation": 0, "federated_only": False, "locked": False,
                                 "linked_identities": []}
    status, text = run("list")
    assert (status, text.splitlines()) == (0, ["USERNAME  USER_ID  NAME  EMAIL             STATE",
                                               "bob       usr_bob  Bob   Bob@Demo.example  active"])
    assert "scrypt" not in shown + text


@pytest.mark.usefixtures("clock", "bob")
def test_show_in_text_prints_every_field_and_its_times_in_iso_8601() -> None:
    status, text = run("show")
    # The clock fixture's START, 1_750_000_000, is 2025-06-15T15:06:40Z; a time never set is "-".
    assert (status, text.splitlines()) == (0, [
        "tenant_id:            demo", "username:             bob", "failed_logins:        0",
        "locked_until:         -", "user_id:              usr_bob", "name:                 Bob",
        "email:                Bob@Demo.example", "email_verified:       yes", "disabled:             no",
        "must_change_password: no", "sessions_valid_after: -", "created_at:           2025-06-15T15:06:40Z",
        "updated_at:           2025-06-15T15:06:40Z", "session_generation:   0", "federated_only:       no",
        "locked:               no", "linked identities: none"])


@pytest.mark.usefixtures("bob", "clock")
def test_update_disable_enable_unlock() -> None:
    # The stopped clock: the checks below compare whole seconds, which a loaded machine may cross mid-test.
    from authgate import clock
    from authgate.stores.users import UserStore

    status, out = run("update", email="bob@new.example", json=True)
    assert status == 0 and (json.loads(out)["email"], json.loads(out)["email_verified"]) == ("bob@new.example", False)
    assert [u.username for u in UserStore().by_email("demo", "BOB@NEW.EXAMPLE")] == ["bob"]
    assert UserStore().by_email("demo", "bob@demo.example") == []
    assert run("update", name="")[0] == 0 and UserStore().get("demo", "bob").name == ""  # type: ignore[union-attr]

    status, out = run("disable")
    assert (status, out) == (0, "user bob disabled (its sessions and refresh tokens end now) in tenant demo\n")
    user = UserStore().get("demo", "bob")
    assert user is not None and user.disabled and user.sessions_valid_after == clock.seconds()
    assert user.session_generation == 1
    assert not user.issued_in_time(clock.seconds())
    assert run("enable")[0] == 0
    user = UserStore().get("demo", "bob")
    assert user is not None and not user.disabled and user.issued_in_time(clock.seconds() + 1)
    assert not user.issued_in_time(clock.seconds())  # enabling brings no earlier token back

    UserStore().db.update_item(TableName="UsersTable", Key={"tenant_id": {"S": "demo"}, "username": {"S": "bob"}},
                               UpdateExpression="SET locked_until = :l, failed_logins = :f",
                               ExpressionAttributeValues={":l": {"N": str(clock.seconds() + 900)}, ":f": {"N": "4"}})
    assert json.loads(run("show", json=True)[1])["locked"] is True
    status, out = run("unlock", json=True)
    assert status == 0 and (json.loads(out)["locked"], json.loads(out)["failed_logins"]) == (False, 0)


@pytest.mark.usefixtures("bob")
def test_a_change_to_a_user_that_is_not_there_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    line = "authgate users: no user 'carol' in tenant 'demo' (see `authgate users list --tenant demo`)\n"
    for action in ("show", "update", "disable", "enable", "unlock", "delete"):
        assert run(action, username="carol", name="Carol") == (2, "")
        assert capsys.readouterr().err == line, action


@pytest.mark.usefixtures("bob")
def test_delete_removes_the_record() -> None:
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.users import UserStore
    from authgate.users.passkeys import Passkey

    # A passkey is personal data, and a user created again under the name must not inherit it.
    PasskeyStore().add(Passkey(credential_id="Y3JlZC0x", tenant_id="demo", username="bob", public_key="AQID",
                               sign_count=0, name="phone", created_at=1))
    status, out = run("delete", json=True)
    assert (status, json.loads(out)) == (0, {"tenant_id": "demo", "username": "bob", "user_id": "usr_bob",
                                             "deleted": True})
    assert UserStore().get("demo", "bob") is None and UserStore().by_email("demo", "bob@demo.example") == []
    assert UserStore().db.scan(TableName="UsersTable")["Items"] == []
    assert PasskeyStore().of_user("demo", "bob") == () and PasskeyStore().get("Y3JlZC0x") is None


@pytest.mark.parametrize(("kwargs", "line"), [
    ({"email": "bob@"}, "--email 'bob@' is not an email address such as alice@example.com"),
    ({"email": "bob smith@example.com"}, ("--email 'bob smith@example.com' is not an email address such as "
                                         "alice@example.com")),
    ({"email": "a@b@example.com"}, "--email 'a@b@example.com' is not an email address such as alice@example.com"),
    ({"name": "two\nlines"}, "--name 'two\\nlines' contains the control character U+000A"),
    ({}, "update needs at least one of --name, --email, --email-verified (see `authgate users update --help`)"),
    ({"tenant": "bad tenant", "name": "x"}, ("--tenant 'bad tenant' must be printable ASCII without spaces or control "
                                            "characters")),
], ids=["no-domain", "space", "two-ats", "control", "nothing", "bad-tenant"])
def test_bad_update_arguments_are_refused_before_any_stack(kwargs: dict[str, object], line: str) -> None:
    from authgate_cli.admin import arguments
    from authgate_cli.admin.users import _validate

    with pytest.raises(arguments.InvalidInput) as refused:
        _validate(user_args("update", **kwargs))
    assert str(refused.value) == line


def link_bob(issuer: str, subject: str, at: int = 1_750_000_000) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity

    LinkedIdentityStore().link(LinkedIdentity("demo", issuer, subject, "usr_bob", "bob", at, "proof"))


OKTA = "https://acme.okta.example"
ENTRA = "https://login.microsoftonline.com/acme/v2.0"


@pytest.fixture
def linked(bob: None) -> None:
    """bob's identities at two IdPs: Okta, trusted with an id and a label, and Entra, trusted no more."""
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    IdentityProviderStore().create(IdentityProvider("demo", OKTA, idp_id="acme-sso", label="Acme SSO"))
    link_bob(OKTA, "00u1", 1_750_000_000)
    link_bob(ENTRA, "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", 1_750_000_060)


@pytest.mark.usefixtures("linked")
def test_show_lists_the_linked_identities() -> None:
    status, shown = run("show", json=True)
    assert status == 0 and json.loads(shown)["linked_identities"] == [
        {"idp_id": "acme-sso", "label": "Acme SSO", "issuer": OKTA, "subject": "00u1", "linked_at": 1_750_000_000,
         "via": "proof"},
        {"idp_id": "", "label": "", "issuer": ENTRA, "subject": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
         "linked_at": 1_750_000_060, "via": "proof"}]
    status, text = run("show")
    assert status == 0 and text.splitlines()[-4:] == [
        "linked identities: 2 identities",
        ("IDP       LABEL     ISSUER                                       SUBJECT                                      "
        "LINKED_AT             VIA"),
        ("acme-sso  Acme SSO  https://acme.okta.example                    00u1                                         "
        "2025-06-15T15:06:40Z  proof"),
        ("-         -         https://login.microsoftonline.com/acme/v2.0  AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ  "
        "2025-06-15T15:07:40Z  proof")]


@pytest.mark.usefixtures("linked")
@pytest.mark.parametrize("idp", ["acme-sso", OKTA])
def test_unlink_removes_the_identity_at_the_idp_named_by_id_or_issuer(idp: str) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore

    assert run("unlink", idp=idp) == (0, f"identity 00u1 of {OKTA} unlinked from user bob in tenant demo\n")
    assert [link.issuer for link in LinkedIdentityStore().of_user("usr_bob")] == [ENTRA]
    assert LinkedIdentityStore().get("demo", OKTA, "00u1") is None


@pytest.mark.usefixtures("linked")
def test_unlink_prints_what_it_removed_as_json() -> None:
    status, out = run("unlink", idp=ENTRA, json=True)
    assert (status, json.loads(out)) == (0, {"tenant_id": "demo", "username": "bob", "unlinked": [
        {"idp_id": "", "label": "", "issuer": ENTRA, "subject": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
         "linked_at": 1_750_000_060, "via": "proof"}]})


@pytest.mark.usefixtures("linked")
def test_unlink_of_an_idp_the_user_has_no_identity_at_is_exit_2_with_a_command_that_lists_them(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run("unlink", idp="https://accounts.google.com") == (2, "")
    assert capsys.readouterr().err == ("authgate users: user 'bob' of tenant 'demo' has no identity linked at "
                                       "'https://accounts.google.com' (see `authgate users show --tenant demo "
                                       "--username bob`)\n")
    assert run("unlink", username="carol", idp="acme-sso") == (2, "")
    assert "no user 'carol' in tenant 'demo'" in capsys.readouterr().err


@pytest.mark.usefixtures("linked")
def test_delete_removes_the_linked_identities_with_the_user() -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore

    assert run("delete")[0] == 0
    assert LinkedIdentityStore().db.scan(TableName="LinkedIdentitiesTable")["Items"] == []


@pytest.mark.usefixtures("linked")
def test_a_user_replaced_by_create_overwrite_takes_no_linked_identity_of_the_one_before() -> None:
    import io as stdin_io

    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate_cli.admin.user_actions import create_user

    status = create_user(user_args("create", overwrite=True), io.StringIO(), stdin_io.StringIO("a-new-password-1\n"))
    assert status == 0
    assert LinkedIdentityStore().db.scan(TableName="LinkedIdentitiesTable")["Items"] == []
