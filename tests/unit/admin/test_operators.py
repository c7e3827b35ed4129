"""`authgate operators grant | revoke | list | show` on the demo stack: roles on the person, refusals in one line."""

from __future__ import annotations

import argparse
import io
import json

import pytest


def args(command: str, **kwargs: object) -> argparse.Namespace:
    return argparse.Namespace(**{"operators_command": command, "operator": "olivia", "role": "support",
                                 "tenants": None, "json": False, **kwargs})


def run(command: str, capsys: pytest.CaptureFixture[str], **kwargs: object) -> tuple[int, str, str]:
    from authgate_cli.admin.operators import act

    out = io.StringIO()
    status = act(args(command, **kwargs), out)
    return status, out.getvalue(), capsys.readouterr().err


def test_olivia_owns_the_demo_stack_and_a_support_role_is_granted_per_tenant(
        demo: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("show", capsys) == (0, (
        "tenant_id: operators\nusername:  olivia\nuser_id:   usr_demoolivia000000000000\ndisabled:  no\n"
        "roles:     owner\n"), "")
    assert run("grant", capsys, tenants=["demo"]) == (0, "operator olivia holds owner, support (demo)\n", "")
    status, out, err = run("grant", capsys, tenants=["acme", "demo"], json=True)
    assert (status, err) == (0, "")
    assert json.loads(out) == {"tenant_id": "operators", "username": "olivia", "user_id": "usr_demoolivia000000000000",
                               "disabled": False, "roles": {"owner": [], "support": ["acme", "demo"]}}
    assert run("revoke", capsys, tenants=["demo"]) == (0, "operator olivia holds owner, support (acme)\n", "")
    assert run("revoke", capsys) == (0, "operator olivia holds owner\n", "")
    assert run("list", capsys) == (0, (
        "USERNAME  USER_ID                     ROLES  STATE\n"
        "olivia    usr_demoolivia000000000000  owner  active\n"), "")
    assert run("revoke", capsys, role="owner") == (0, "operator olivia holds none\n", "")


def test_what_the_operator_does_not_hold_or_the_stack_does_not_have_is_one_line(
        demo: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("revoke", capsys, role="admin") == (2, "", (
        "authgate operators: operator 'olivia' holds no role admin (see `authgate operators show --username olivia`)\n"))
    run("grant", capsys, tenants=["acme"])
    assert run("revoke", capsys, tenants=["demo"]) == (2, "", (
        "authgate operators: operator 'olivia' holds role support for no tenant 'demo' "
        "(see `authgate operators show --username olivia`)\n"))
    assert run("grant", capsys, operator="bob", tenants=["acme"]) == (2, "", (
        "authgate operators: no user 'bob' in tenant 'operators' (see `authgate users list --tenant operators`)\n"))
    assert run("grant", capsys, tenants=["globex"]) == (2, "", (
        "authgate operators: tenant 'globex' does not exist here (see `authgate tenants list`)\n"))


@pytest.mark.parametrize(("argv", "line"), [
    (["grant", "--username", "olivia", "--role", "support"],
     "role support is held for tenants: name at least one with --tenant"),
    (["grant", "--username", "olivia", "--role", "admin", "--tenant", "acme"],
     "role admin holds everywhere: --tenant is for role support only"),
    (["revoke", "--username", "olivia", "--role", "owner", "--tenant", "acme"],
     "role owner holds everywhere: --tenant is for role support only"),
    (["grant", "--username", "olivia", "--role", "support", "--tenant", "a b"],
     "--tenant 'a b' must be printable ASCII without spaces or control characters"),
])
def test_a_role_and_tenants_that_do_not_fit_are_refused_before_any_stack(
        argv: list[str], line: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: object) -> None:
    from authgate_cli.main import main

    monkeypatch.setenv("AUTHGATE_STATE_DIR", str(tmp_path))  # no stack runs: none is looked for
    assert main(["operators", *argv]) == 2
    assert capsys.readouterr() == ("", f"authgate operators: {line}\n")
