"""Every admin subcommand, read from the `authgate` parser itself, walked through its usual mistakes.

The nouns and their subcommands come from build_parser's own subparsers, not from a list kept here: a
subcommand registered tomorrow is walked too (and fails here until the names it takes have values
below). Each runs in-process, as `authgate ...` would, against moto with the demo seed, aimed at it
through a local stack's state record like the one `authgate serve` writes. The mistakes, and what every
subcommand answers (docs/local.md, "Admin commands: exit status and output"):

- a required argument left out: argparse's usage error, exit 2;
- a bad value of a required argument: one line naming it, exit 2, before any stack is looked up;
- a tenant that does not exist: said first, whatever else the command names, exit 2;
- a name the stack does not have: one line ending with a command that works (run here), exit 2;
- a value outside an option's choices: argparse's usage error, exit 2;
- `update` with nothing to change, or with an option `create` takes and it does not: exit 2, saying what
  it takes.

Each subcommand's usual call, finally, works (exit 0).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from authgate.federation.saml.sp_keys import fingerprint
from tests.admin_parser import EXTRA, admin_commands, command_line, parser_of, required
from tests.demo import ISSUER
from tests.saml_support import signing_key, store_sp_keys

RESOURCE = "https://files.example/api"
IDP = "https://idp.example"
TARGET = f"target: local stack {ISSUER} (stage local)\n"
PASSWORD = "carol-password-1"

# The value of each argument that names something, by its dest: one the demo stack has (KNOWN, plus the
# current signing key's kid), one `create` makes (NEW), one nobody made (UNKNOWN), one refused as written (BAD).
KNOWN = {"tenant": "demo", "tenants": "demo", "username": "alice", "client_id": "demo-service", "tenant_id": "demo",
         "resource": RESOURCE, "issuer": IDP, "scopes": "mcp:read", "idp": IDP, "operator": "olivia",
         "role": "support"}
NEW = {"username": "carol", "tenant_id": "globex", "resource": "https://new.example/api",
       "issuer": "https://new-idp.example"}
UNKNOWN = {"tenant": "nosuch", "tenants": "nosuch", "username": "nobody", "client_id": "nosuch",
           "tenant_id": "nosuch", "resource": "https://nosuch.example/api", "issuer": "https://nosuch.example",
           "kid": "nosuch", "idp": "https://nosuch.example", "operator": "nobody", "role": "support",
           "fingerprint": ":".join(["AB"] * 32)}
BAD = {"fingerprint": "a b", "tenant": "a b", "username": "bob\x07", "client_id": "a b", "tenant_id": "a b", "resource": "not a uri",
       "issuer": "idp example", "kid": "a b", "scopes": "a  b", "idp": "a b", "operator": "olivia\x07"}
TENANTS = ("tenant", "tenants")
COMMANDS = admin_commands()
# The audit trail is a log, not a collection: it is listed, followed and verified (no `show`), and its filters
# may name a tenant, user or client that is gone (an auditor asks after them): nothing there is "unknown".
TRAIL = "events"
# Follows the trail until Ctrl-C (tests/unit/admin/test_events.py bounds it).
ENDLESS = (("events", "tail"),)


def _is_required(parser: argparse.ArgumentParser, dest: str) -> bool:
    return any(a.required for a in parser._actions if a.dest == dest)


def _option(parser: argparse.ArgumentParser, dest: str) -> str:
    return next(a.option_strings[0] for a in parser._actions if a.dest == dest)


def _tenant_named(noun: str, verb: str) -> bool:
    return bool({a.dest for a in parser_of(noun, verb)._actions} & set(TENANTS))


def _names(noun: str, verb: str) -> list[str]:
    """The required arguments that name a thing the stack has (what `create` names, it makes)."""
    return [a.dest for a in required(parser_of(noun, verb)) if a.dest in UNKNOWN and a.dest not in TENANTS] \
        if verb != "create" else []


def _ids(commands: list[tuple[str, str]]) -> list[str]:
    return [f"{noun}-{verb}" for noun, verb in commands]


# The subcommands with something to leave out or get wrong before a stack, and those that name something.
CHECKED = [(n, v) for n, v in COMMANDS if any(a.required or (a.choices and a.option_strings)
                                             for a in parser_of(n, v)._actions)]
NAMING = [(n, v) for n, v in COMMANDS if n != TRAIL and (_tenant_named(n, v) or _names(n, v))]


def _shown(action: argparse.Action) -> str:
    """How argparse names an argument in its errors."""
    return "/".join(action.option_strings) or str(action.metavar or action.dest)


def _argv(noun: str, verb: str, values: dict[str, str], extra: list[str] | None = None,
          leave_out: str | None = None) -> list[str]:
    try:
        return command_line(noun, verb, values, extra, leave_out)
    except KeyError as missing:
        pytest.fail(f"authgate {noun} {verb}: no value for {missing} here (add it to KNOWN, NEW, UNKNOWN, BAD)")


@pytest.fixture
def stack(demo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> Iterator[dict[str, str]]:
    """The demo stack recorded as a running local stack (this process), with a registered resource and a
    trusted identity provider alice has an identity at, and her consent for demo-service; the names the demo stack has, the current signing key's
    kid among them."""
    from authgate import caches
    from authgate.stores.signing_keys import KeyStore
    from authgate_cli.local import stack as local

    monkeypatch.setenv("AUTHGATE_STATE_DIR", str(tmp_path))
    saved = dict(os.environ)
    # As `authgate serve` records them: mail lands in an outbox (send-reset-link needs a stage that sends mail), and
    # every mutating command is recorded in the audit trail's directory.
    env = {**local.environment(issuer=ISSUER, aws_endpoint=None), "AUTHGATE_OUTBOX": str(tmp_path / "outbox"),
           "AUTHGATE_AUDIT_DIR": str(tmp_path / "audit")}
    local.write_state({"pid": os.getpid(), "base_url": ISSUER, "issuer": ISSUER,
                       "env": {k: v for k, v in env.items() if k != "AUTHGATE_SESSION_SECRET"}})
    for argv in (["resources", "create", RESOURCE, "--scopes", "mcp:read"],
                 ["idps", "create", "--tenant", "demo", "--issuer", IDP, "--jwks-uri", "https://idp.example/keys"],
                 ["operators", "grant", "--username", "olivia", "--role", "support", "--tenant", "demo"]):
        assert run(argv, capsys, monkeypatch)[0] == 0, argv
    _link_alice()
    _alice_allows()
    store_sp_keys(signing_key("sp"))  # the stack's SAML signing key (`saml-keys show` names it)
    yield {**KNOWN, "kid": KeyStore().all()[0].kid, "fingerprint": fingerprint(signing_key("sp").cert_pem)}
    os.environ.clear()
    os.environ.update(saved)
    caches.reset()


def _link_alice() -> None:
    """What her first sign-in through the IdP leaves (authgate.federation.identities)."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity

    alice = UserStore().get("demo", "alice")
    assert alice is not None
    LinkedIdentityStore().link(LinkedIdentity("demo", IDP, "00u-alice", alice.user_id, "alice", 1_750_000_000, "proof"))


def _alice_allows() -> None:
    """What her approval of demo-service leaves (oauth.authorization.single_sign_on)."""
    from authgate.stores.consents import ConsentStore
    from authgate.stores.users import UserStore

    alice = UserStore().get("demo", "alice")
    assert alice is not None
    ConsentStore().remember("demo", alice.user_id, "demo-service", ("charges:read",), None)


def run(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """`authgate ARGV` in this process: its exit status, stdout and stderr."""
    from authgate_cli.main import main

    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO(PASSWORD + "\n"))
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's usage errors and --help
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_walk_finds_every_noun_and_each_has_list_and_show() -> None:
    nouns = {noun for noun, _ in COMMANDS}
    assert nouns == {"clients", "users", "keys", "saml-keys", "tenants", "resources", "idps", "operators", TRAIL}
    assert {verb for n, verb in COMMANDS if n == TRAIL} == {"list", "tail", "verify"}
    for noun in nouns - {TRAIL}:
        assert {"list", "show"} <= {verb for n, verb in COMMANDS if n == noun}, noun
        # Every `show` names what it shows, so an unknown name is walked below.
        assert (noun, "show") in NAMING, noun
    assert set(EXTRA) <= set(COMMANDS)


@pytest.mark.parametrize(("noun", "verb"), CHECKED, ids=_ids(CHECKED))
def test_a_left_out_argument_or_a_bad_value_is_refused_before_any_stack(
        noun: str, verb: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """No stack runs here: each is refused before one is looked for."""
    values = {**KNOWN, **(NEW if verb == "create" else {}), "kid": "k1"}
    for action in required(parser_of(noun, verb)):
        status, out, err = run(_argv(noun, verb, values, leave_out=action.dest), capsys, monkeypatch)
        assert (status, out) == (2, ""), action.dest
        assert err.startswith(f"usage: authgate {noun} {verb} ")
        assert err.endswith(f"authgate {noun} {verb}: error: the following arguments are required: "
                            f"{_shown(action)}\n"), err
        if action.dest in BAD:
            status, out, err = run(_argv(noun, verb, {**values, action.dest: BAD[action.dest]}), capsys, monkeypatch)
            assert (status, out, err.count("\n")) == (2, "", 1), err
            assert err.startswith(f"authgate {noun}: ") and repr(BAD[action.dest]) in err, err
    for action in parser_of(noun, verb)._actions:
        if action.choices and action.option_strings:
            status, out, err = run(_argv(noun, verb, values) + [action.option_strings[0], "bogus"], capsys,
                                   monkeypatch)
            assert (status, out) == (2, "")
            assert f"error: argument {_shown(action)}: invalid choice: 'bogus'" in err, err


def _hint(line: str) -> str:
    """The command a refusal suggests: its last "(see `authgate ...`)"."""
    found = re.search(r"\(see `authgate ([^`]+)`\)$", line)
    assert found, f"no (see `authgate ...`) at the end of: {line}"
    return found.group(1)


def _works(command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, _, err = run(shlex.split(command), capsys, monkeypatch)
    assert status == 0, f"the suggested `authgate {command}` fails: {err}"


@pytest.mark.parametrize(("noun", "verb"), NAMING, ids=_ids(NAMING))
def test_unknown_names_are_exit_2_with_a_command_that_works(
        noun: str, verb: str, stack: dict[str, str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    parser = parser_of(noun, verb)
    dests = {a.dest for a in parser._actions}
    known = {**stack, **(NEW if verb == "create" else {})}
    if _tenant_named(noun, verb):
        # The tenant first: whatever else it names is not there either (but what `create` makes).
        unknown = {**(known if verb == "create" else UNKNOWN), **{t: UNKNOWN[t] for t in TENANTS}}
        given = [a for t in TENANTS if t in dests and not _is_required(parser, t)
                 for a in (_option(parser, t), UNKNOWN[t])]
        status, out, err = run(_argv(noun, verb, unknown, EXTRA.get((noun, verb), []) + given), capsys, monkeypatch)
        line = f"authgate {noun}: tenant 'nosuch' does not exist here (see `authgate tenants list`)\n"
        assert (status, out, err) == (2, "", TARGET + line)
        _works(_hint(line.rstrip("\n")), capsys, monkeypatch)
    names = _names(noun, verb)
    if names:
        status, out, err = run(_argv(noun, verb, {**known, **{n: UNKNOWN[n] for n in names}}), capsys, monkeypatch)
        assert (status, out) == (2, "") and err.startswith(TARGET) and err.count("\n") == 2, err
        line = err.splitlines()[1]
        assert line.startswith(f"authgate {noun}: ") and repr(UNKNOWN[names[0]]) in line, line
        _works(_hint(line), capsys, monkeypatch)


# Hashes a password at full scrypt cost, or makes an RSA 3072 key (about half a second each): run by `make test`,
# not `make test-fast`.
HASHING = (("users", "reset-password"), ("saml-keys", "add"))


@pytest.mark.parametrize(("noun", "verb"), [pytest.param(*c, marks=pytest.mark.slow) if c in HASHING else c
                                            for c in COMMANDS if c not in ENDLESS],
                         ids=_ids([c for c in COMMANDS if c not in ENDLESS]))
def test_the_usual_call_works(noun: str, verb: str, stack: dict[str, str], capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """What the mistakes above are measured against: the same command line, with names the stack has (or that
    `create` makes), names its stack and prints what it did."""
    status, out, err = run(_argv(noun, verb, {**stack, **(NEW if verb == "create" else {})}), capsys, monkeypatch)
    assert (status, err) == (0, TARGET)
    assert out


UPDATES = [noun for noun, verb in COMMANDS if verb == "update"]


@pytest.mark.parametrize("noun", UPDATES)
def test_update_says_what_it_takes(noun: str, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing to change, or an option only `create` takes: what update takes, before any stack is looked up."""
    status, out, err = run(_argv(noun, "update", KNOWN, extra=[]), capsys, monkeypatch)
    assert (status, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith(f"authgate {noun}: update needs ")
    assert _hint(err.rstrip("\n")) == f"{noun} update --help"
    _works(f"{noun} update --help", capsys, monkeypatch)
    takes = {s for a in parser_of(noun, "update")._actions for s in a.option_strings if s not in ("-h", "--help")}
    for action in parser_of(noun, "create")._actions:
        if not action.option_strings or set(action.option_strings) & (takes | {"-h", "--help"}):
            continue
        flag = action.option_strings[0]
        given = [flag] if action.nargs == 0 else [flag, "x"]
        status, out, err = run(_argv(noun, "update", KNOWN) + given, capsys, monkeypatch)
        assert (status, out) == (2, "")
        line = err.splitlines()[-1]
        assert line.startswith(f"authgate {noun} update: error: unrecognized arguments: {' '.join(given)} ("), line
        said, takes_line = line.split("; update takes ")
        assert f"`{noun} create`" in said and said.endswith(f" {flag}"), line
        assert set(takes_line.rstrip(")").split(", ")) == takes, line
