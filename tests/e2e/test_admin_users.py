"""`authgate users ...` against the running `authgate serve`: an operator runs an account from creation
to deletion, and every change holds at the sign-in page and the token endpoint of that server
(disabled: no sign-in and no refresh; reset: the old refresh tokens die; deleted: the record and
its personal data are gone). Bad input is one line on stderr and exit 2."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.e2e.admin_commands import admin, one_line_refusal
from tests.e2e.conftest import LocalStack
from tests.e2e.flows import Flows, hidden_fields, pkce_pair

pytestmark = pytest.mark.e2e

TENANT = "demo"
REVOKED = {"error": "invalid_grant", "error_description": "The refresh token has been revoked."}
USER_ID = re.compile(r"usr_[A-Za-z0-9_-]{22}")


def users(stack: LocalStack, action: str, username: str, *args: str, stdin: str | None = None) -> dict[str, object]:
    """`authgate users ACTION --tenant demo --username USERNAME ARGS --json`, which must succeed: its JSON."""
    done = admin(stack, "users", action, "--tenant", TENANT, "--username", username, *args, "--json", stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"target: local stack {stack.base_url} (stage local)\n"
    result: dict[str, object] = json.loads(done.stdout)
    return result


def signed_in(flows: Flows, username: str, password: str) -> dict[str, str]:
    """A code flow of demo-web as `username`: the token response."""
    code, verifier = flows.authorize(username=username, password=password)
    token = flows.exchange(code, verifier)
    assert token.status_code == 200, token.text
    body: dict[str, str] = token.json()
    return body


def refused_refresh(flows: Flows, refresh_token: str) -> None:
    refused = flows.refresh(refresh_token)
    base_url = flows.session.base_url
    assert (refused.status_code, refused.headers["Content-Type"], refused.headers["Cache-Control"],
            refused.json()) == (400, "application/json", "no-store",
                                {**REVOKED, "error_uri": f"{base_url}/problems/invalid_grant"})


def wrong_password_page(flows: Flows, username: str, password: str) -> None:
    page = flows.login_page(challenge=pkce_pair()[1])
    again = flows.submit_login(page, username=username, password=password)
    assert again.status_code == 200 and "Location" not in again.headers
    assert "The username or password is incorrect" in again.text


def test_an_operator_runs_an_account_from_creation_to_deletion(local_stack: LocalStack) -> None:
    created = users(local_stack, "create", "e2e-carol", "--name", "Carol Example", "--email", "Carol@Example.com",
                    "--email-verified", "--password-stdin", stdin="carol-password-1\n")
    user_id = created.pop("user_id")
    assert isinstance(user_id, str) and USER_ID.fullmatch(user_id)
    assert isinstance(created["created_at"], int) and created["sessions_valid_after"] == created["created_at"] - 1
    assert created == {"tenant_id": "demo", "username": "e2e-carol", "failed_logins": 0, "locked_until": 0,
                       "name": "Carol Example", "email": "Carol@Example.com", "email_verified": True,
                       "disabled": False, "must_change_password": False,
                       "sessions_valid_after": created["created_at"] - 1, "created_at": created["created_at"],
                       "updated_at": created["created_at"], "session_generation": 0, "federated_only": False,
                       "locked": False}
    listed = admin(local_stack, "users", "list", "--tenant", TENANT, "--json")
    assert listed.returncode == 0, listed.stderr
    assert {u["username"]: u["user_id"] for u in json.loads(listed.stdout)}["e2e-carol"] == user_id
    table = admin(local_stack, "users", "list", "--tenant", TENANT)
    assert table.stdout.splitlines()[0].split() == ["USERNAME", "USER_ID", "NAME", "EMAIL", "STATE"]
    assert f"e2e-carol  {user_id}  Carol Example  Carol@Example.com" in table.stdout
    assert "scrypt" not in listed.stdout + table.stdout + json.dumps(created)  # never the password hash

    updated = users(local_stack, "update", "e2e-carol", "--email", "carol@new.example")
    assert (updated["email"], updated["email_verified"], updated["name"]) == ("carol@new.example", False,
                                                                              "Carol Example")

    flows = Flows(local_stack.base_url)
    try:
        first = signed_in(flows, "e2e-carol", "carol-password-1")
        disabled = users(local_stack, "disable", "e2e-carol")
        assert disabled["disabled"] is True and disabled["sessions_valid_after"] >= first_issued(created)
        assert disabled["session_generation"] == 1
        refused_refresh(flows, first["refresh_token"])
        wrong_password_page(flows, "e2e-carol", "carol-password-1")  # a disabled account answers as a wrong one
        # The refused refresh revoked the whole grant, its access token too (RFC 7009 2.1).
        assert flows.introspect(first["access_token"]).json() == {"active": False}

        assert users(local_stack, "enable", "e2e-carol")["disabled"] is False
        refused_refresh(flows, first["refresh_token"])  # enabling again brings no old token back
        # No wait for the next second: a sign-in after an end of sessions stands even in its very second
        # (users.model.User.admits), and the session opened before the disable does not.
        second = signed_in(flows, "e2e-carol", "carol-password-1")
        assert flows.refresh(second["refresh_token"]).status_code == 200

        reset = users(local_stack, "reset-password", "e2e-carol", "--password-stdin", stdin="carol-temporary-1\n")
        assert reset["must_change_password"] is True
        wrong_password_page(flows, "e2e-carol", "carol-password-1")  # the old password is gone
    finally:
        flows.close()

    gone = users(local_stack, "delete", "e2e-carol")
    assert gone == {"tenant_id": "demo", "username": "e2e-carol", "user_id": user_id, "deleted": True}
    shown = admin(local_stack, "users", "show", "--tenant", TENANT, "--username", "e2e-carol")
    assert (shown.returncode, shown.stdout, shown.stderr.splitlines()[-1]) == (
        2, "", "authgate users: no user 'e2e-carol' in tenant 'demo' (see `authgate users list --tenant demo`)")
    listed = admin(local_stack, "users", "list", "--tenant", TENANT, "--json")
    assert "e2e-carol" not in listed.stdout and "carol@new.example" not in listed.stdout


def first_issued(created: dict[str, object]) -> int:
    value = created["created_at"]
    assert isinstance(value, int)
    return value


def test_unlock_clears_the_throttle(local_stack: LocalStack) -> None:
    users(local_stack, "create", "e2e-dave", "--password-stdin", stdin="dave-password-1\n")
    flows = Flows(local_stack.base_url)
    try:
        for _ in range(3):
            wrong_password_page(flows, "e2e-dave", "not-daves-password")
        throttled = users(local_stack, "show", "e2e-dave")
        assert throttled["failed_logins"] == 3
        unlocked = users(local_stack, "unlock", "e2e-dave")
        assert (unlocked["failed_logins"], unlocked["locked_until"], unlocked["locked"]) == (0, 0, False)
        assert signed_in(flows, "e2e-dave", "dave-password-1")["token_type"] == "Bearer"
    finally:
        flows.close()


@pytest.mark.parametrize(("args", "line", "before_stack"), [
    (["show", "--tenant", "demo", "--username", "e2e-nobody"],
     "authgate users: no user 'e2e-nobody' in tenant 'demo' (see `authgate users list --tenant demo`)", False),
    (["disable", "--tenant", "demo", "--username", "e2e-nobody"],
     "authgate users: no user 'e2e-nobody' in tenant 'demo' (see `authgate users list --tenant demo`)", False),
    (["list", "--tenant", "no-such-tenant"],
     "authgate users: tenant 'no-such-tenant' does not exist here (see `authgate tenants list`)",
     False),
    (["show", "--tenant", "no-such-tenant", "--username", "e2e-nobody"],
     "authgate users: tenant 'no-such-tenant' does not exist here (see `authgate tenants list`)",
     False),
    (["update", "--tenant", "demo", "--username", "alice", "--email", "alice@"],
     "authgate users: --email 'alice@' is not an email address such as alice@example.com", True),
    (["update", "--tenant", "demo", "--username", "alice"],
     ("authgate users: update needs at least one of --name, --email, --email-verified "
     "(see `authgate users update --help`)"), True),
    (["create", "--tenant", "demo", "--username", "e2e-eve", "--email", "alice@demo.example", "--password-stdin"],
     "authgate users: the email 'alice@demo.example' is already user 'alice''s in tenant 'demo'", False),
], ids=["show-unknown", "disable-unknown", "unknown-tenant", "show-in-unknown-tenant", "bad-email", "update-nothing",
        "email-taken"])
def test_bad_input_is_one_line_and_exit_2(local_stack: LocalStack, args: list[str], line: str,
                                          before_stack: bool) -> None:
    done = admin(local_stack, "users", *args, stdin="eve-password-1\n")
    if before_stack:
        one_line_refusal(done, line)  # refused before any stack is looked up: not even a "target:" line
    else:
        assert (done.returncode, done.stdout, done.stderr.splitlines()) == (
            2, "", [f"target: local stack {local_stack.base_url} (stage local)", line])


def test_reset_password_forces_a_change_at_the_next_sign_in(local_stack: LocalStack) -> None:
    users(local_stack, "create", "e2e-frank", "--password-stdin", stdin="frank-password-1\n")
    reset = users(local_stack, "reset-password", "e2e-frank", "--password-stdin", stdin="frank-temporary-1\n")
    assert reset["must_change_password"] is True
    flows = Flows(local_stack.base_url)
    try:
        verifier, challenge = pkce_pair()
        page = flows.login_page(challenge=challenge)
        change = flows.submit_login(page, username="e2e-frank", password="frank-temporary-1")
        # The correct temporary password leads to the change form, not to the client.
        assert (change.status_code, "Location" in change.headers) == (200, False)
        assert "Your password was reset by an administrator." in change.text
        assert change.headers["Cache-Control"] == "no-store"
        assert "frame-ancestors 'none'" in change.headers["Content-Security-Policy"]
        fields = hidden_fields(change.text)
        assert set(fields) == {"request_blob", "csrf", "change_ticket", "decision"}

        def post(new: str, confirm: str) -> requests.Response:
            return flows.request("POST", "/oauth/authorize", headers={"Accept": "text/html"},
                                 data={**fields, "new_password": new, "confirm": confirm})

        for new, confirm, message in (("e2e-frank", "e2e-frank", "The password must not be the username."),
                                      ("frank-password-2", "frank-password-3", "The two passwords differ.")):
            again = post(new, confirm)
            assert again.status_code == 200 and message in again.text
        done = post("frank-password-2", "frank-password-2")
        assert done.status_code == 303, done.text[:300]
        code = parse_qs(urlsplit(done.headers["Location"]).query)["code"][0]
        assert flows.exchange(code, verifier).status_code == 200
        # Changed once: the ticket is spent, the user no longer must change, the new password signs in.
        spent = post("frank-password-4", "frank-password-4")  # an error redirect to the client, no code
        assert spent.status_code == 303
        assert parse_qs(urlsplit(spent.headers["Location"]).query)["error"] == ["invalid_request"]
        assert users(local_stack, "show", "e2e-frank")["must_change_password"] is False
        assert signed_in(flows, "e2e-frank", "frank-password-2")["token_type"] == "Bearer"
    finally:
        flows.close()


def test_a_person_an_idp_vouched_for_is_shown_with_their_link_unlinked_and_deleted_with_it(
        local_stack: LocalStack, tmp_path: Path) -> None:
    """An agent's ID-JAG of an unknown person through an IdP that may create users provisions them (no password,
    linked to the IdP's subject); `users show` lists the link, `unlink` removes it, `delete` takes what is left."""
    from tests.idp_support import TestIdp

    issuer, resource = "https://e2e-accounts-idp.example", "https://e2e-accounts.example/mcp"
    idp = TestIdp(issuer)
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(idp.jwks()))
    for argv in (("idps", "create", "--tenant", TENANT, "--issuer", issuer, "--jwks-file", str(jwks),
                  "--create-users"), ("resources", "create", resource, "--scopes", "mcp:read")):
        done = admin(local_stack, *argv)
        assert done.returncode == 0, done.stderr
    created = admin(local_stack, "clients", "create", "--tenant", TENANT, "--grant", "jwt-bearer", "--json")
    assert created.returncode == 0, created.stderr
    agent = json.loads(created.stdout)

    def present(subject: str) -> requests.Response:
        assertion = idp.id_jag(audience=local_stack.base_url, client_id=agent["client_id"], subject=subject,
                               resource=resource, scope="mcp:read", email=f"{subject}@e2e-accounts.example")
        return requests.post(f"{local_stack.base_url}/oauth/token", timeout=30, data={
            "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion,
            "client_id": agent["client_id"], "client_secret": agent["client_secret"]})

    answer = present("e2e-dana")
    assert answer.status_code == 200, answer.text
    claims = json.loads(base64.urlsafe_b64decode(answer.json()["access_token"].split(".")[1] + "=="))
    shown = users(local_stack, "show", "e2e-dana")
    assert (claims["sub"], claims["username"]) == (shown["user_id"], "e2e-dana")
    assert (shown["federated_only"], shown["email"], shown["email_verified"]) == (
        True, "e2e-dana@e2e-accounts.example", False)
    assert shown["linked_identities"] == [{"idp_id": "", "label": "", "issuer": issuer, "subject": "e2e-dana",
                                           "linked_at": shown["linked_identities"][0]["linked_at"],
                                           "via": "provisioned"}]
    text = admin(local_stack, "users", "show", "--tenant", TENANT, "--username", "e2e-dana")
    assert text.stdout.splitlines()[-3:-1] == [
        "linked identities: 1 identity",
        "IDP  LABEL  ISSUER                            SUBJECT   LINKED_AT             VIA"]

    unlinked = admin(local_stack, "users", "unlink", "--tenant", TENANT, "--username", "e2e-dana", "--idp", issuer)
    assert (unlinked.returncode, unlinked.stdout) == (
        0, f"identity e2e-dana of {issuer} unlinked from user e2e-dana in tenant demo\n")
    assert users(local_stack, "show", "e2e-dana")["linked_identities"] == []
    again = admin(local_stack, "users", "unlink", "--tenant", TENANT, "--username", "e2e-dana", "--idp", issuer)
    assert (again.returncode, again.stdout, again.stderr.splitlines()[-1]) == (
        2, "", (f"authgate users: user 'e2e-dana' of tenant 'demo' has no identity linked at '{issuer}' "
                "(see `authgate users show --tenant demo --username e2e-dana`)"))

    # Unlinked, the identity is nobody's: the account claims its email, and this IdP is not trusted for emails, so
    # an agent cannot have it; deleted, nothing of the person is left, and the next assertion provisions anew.
    refused = present("e2e-dana")
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")
    assert "is a user's of this tenant" in refused.json()["error_description"]
    assert users(local_stack, "delete", "e2e-dana")["deleted"] is True
    assert present("e2e-dana").status_code == 200
    assert users(local_stack, "show", "e2e-dana")["linked_identities"][0]["via"] == "provisioned"
