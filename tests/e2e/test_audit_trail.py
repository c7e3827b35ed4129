"""The audit trail through `authgate serve --data DIR` (docs/audit.md): tokens, a failed client authentication,
a refresh, a revocation, a charge and admin commands recorded with who and from where; `authgate events list`
finds them, `verify` says the chain is intact and names an edited or a missing object, and a restart over the
same DIR goes on with the same chain. No secret of any of it reaches the trail."""

from __future__ import annotations

import getpass
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, authgate_command, running_stack
from tests.e2e.flows import WEB, Flows
from tests.log_hygiene import SecretHarvest, leaks

pytestmark = pytest.mark.e2e


def listed(stack: LocalStack, *filters: str, count: int, wait: float = 15.0) -> list[dict[str, Any]]:
    """`authgate events list --json` until it shows `count` events (the trail keeps lines within a second)."""
    deadline = time.monotonic() + wait
    while True:
        done = admin(stack, "events", "list", "--json", *filters)
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)
        if len(found) >= count or time.monotonic() > deadline:
            return list(found)
        time.sleep(0.3)


def objects(trail: Path) -> list[Path]:
    """The trail's object files, oldest first (a day's names count down)."""
    return sorted((trail / "events").glob("date=*/*.jsonl"), key=lambda p: (p.parent.name, -int(p.stem)))


def test_acts_through_serve_are_kept_listed_and_verified(tmp_path: Path) -> None:
    data = tmp_path / "data"
    harvest = SecretHarvest()
    with running_stack(tmp_path / "one", "--data", str(data)) as stack:
        flows = Flows(stack.base_url, on_response=lambda r: harvest.headers(r.request.headers.items()))
        issued = flows.request("POST", "/oauth/token", auth=("demo-service", "demo-service-secret"),
                               headers={"User-Agent": "billing-service/3.1"},
                               data={"grant_type": "client_credentials", "scope": "charges:read charges:write"})
        assert issued.status_code == 200
        access = issued.json()["access_token"]
        assert flows.client_credentials(secret="not-the-secret").status_code == 401
        code, verifier = flows.authorize()
        tokens = flows.exchange(code, verifier).json()
        rotated = flows.refresh(tokens["refresh_token"]).json()
        assert flows.revoke(rotated["refresh_token"], hint="refresh_token").status_code == 200
        charge = flows.create_charge(access, key="audit-e2e")
        assert charge.status_code == 201
        for value in (access, tokens["access_token"], tokens["refresh_token"], rotated["refresh_token"], code,
                      verifier, "not-the-secret"):
            harvest.add(value)
        assert admin(stack, "users", "disable", "--tenant", "demo", "--username", "bob").returncode == 0

        found = listed(stack, "--since", "1h", count=10)
        actions = [e["action"] for e in found]
        # alice's sign-in through the form: her session and her consent, then the code's token.
        assert actions == ["token.issued", "client.authentication_failed", "signin.succeeded", "session.started",
                           "consent.granted", "token.issued", "token.refreshed", "token.revoked", "charge.created",
                           "user.disabled"], actions
        first = found[0]
        assert (first["request_id"], first["source_ip"], first["user_agent"]) == (
            issued.headers["x-request-id"], "127.0.0.1", "billing-service/3.1")
        assert first["details"]["jti"] == json.loads(_segment(access))["jti"]
        assert found[5]["target"]["type"] == "user" and found[5]["details"]["username"] == "alice"
        assert (found[8]["target"]["id"], found[8]["details"]["amount"]) == (charge.json()["id"], 1050)
        user = getpass.getuser()
        assert found[9]["actor"] == {"type": "operator", "id": user, "principal": f"local:{user}"}
        assert [e["action"] for e in listed(stack, "--client", WEB[0], count=5)] == [
            "signin.succeeded", "consent.granted", "token.issued", "token.refreshed", "token.revoked"]

        verified = admin(stack, "events", "verify")
        assert verified.returncode == 0 and verified.stdout.startswith("INTACT: "), verified.stdout
        kept = objects(data / "audit")
        assert kept and leaks([p.read_text() for p in kept], harvest.secrets) == []

    # A restart over the same DIR goes on with the same chain.
    with running_stack(tmp_path / "two", "--data", str(data)) as stack:
        assert Flows(stack.base_url).client_credentials().status_code == 200
        assert len(listed(stack, "--since", "1h", count=11)) == 11
        again = admin(stack, "events", "verify", "--json")
        assert again.returncode == 0 and json.loads(again.stdout)["objects"] > len(kept)

        # The first object edited, the second taken away: each named, and the command fails.
        first, second, third = objects(data / "audit")[:3]
        first.chmod(0o600)
        first.write_text(first.read_text().replace('"demo"', '"acme"'))
        second.unlink()
        broken = admin(stack, "events", "verify")
        assert broken.returncode == 1
        assert broken.stdout.splitlines()[:2] == [
            f"edited: {first.relative_to(data / 'audit')}: its events are not the events it sealed",
            f"missing: {third.relative_to(data / 'audit')}: sequence 2 before it is not there"]
        assert broken.stdout.splitlines()[-1].startswith("NOT INTACT: 2 finding(s)")


def test_the_demo_app_shows_the_newest_events(tmp_path: Path) -> None:
    with running_stack(tmp_path, "--callback-port", "0") as stack:
        assert Flows(stack.base_url).client_credentials().status_code == 200
        assert listed(stack, count=1)
        with requests.get(f"{stack.demo_app}/events", timeout=10) as page:
            assert page.status_code == 200
            assert "<td>token.issued</td><td>success</td><td>demo</td><td>client: demo-service</td>" in page.text
        with requests.get(f"{stack.demo_app}/", timeout=10) as index:
            assert '<a href="/events">the audit trail</a>' in index.text


def _segment(token: str) -> str:
    import base64

    part = token.split(".")[1]
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode()


def test_events_commands_refuse_bad_times_before_any_stack_is_looked_for(tmp_path: Path) -> None:
    done = subprocess.run([*authgate_command(), "events", "list", "--since", "last week"], capture_output=True, text=True, timeout=60,
                          env={"AUTHGATE_STATE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("authgate events: --since 'last week' is neither an ISO 8601 time in UTC "
                           "(2026-01-31T12:00:00Z, 2026-01-31) nor an age (90s, 15m, 2h, 7d)\n")
