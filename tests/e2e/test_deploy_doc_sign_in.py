"""docs/deploy.md, "3. The first tenant, client and user" and "A first sign-in", followed by a person.

A deployed stage starts empty, so this runs against an `authgate serve` seeded with nothing but an
API key. The doc's commands run as printed, from the repository, except for the target (`--stack-name authgate-staging`
becomes the local stack's `--url`; `$ISSUER` is its base URL), the password's channel (the doc's
prompt; here `--password-stdin`) and the code the person copies from the address bar. The browser
steps (open the URL, sign in, Approve) are done in headless Chromium; the redirect to
127.0.0.1:8765, which nothing serves, is answered by the browser context itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.e2e.chromium import chromium
from tests.e2e.conftest import REPO_ROOT, LocalStack, running_stack

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

DOC = REPO_ROOT / "docs" / "deploy.md"
PASSWORD = "alice-first-password"
API_KEY = "first-stage-key"


def section(title: str, until: str) -> str:
    text = DOC.read_text("utf-8")
    return text.split(title, 1)[1].split(until, 1)[0]


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, re.DOTALL)


def commands(block: str) -> list[str]:
    """Each command of a block, continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", "", block)
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip() and not line.lstrip()
            .startswith("#")]


@pytest.fixture(scope="module")
def empty_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """What a new stage holds: no tenant, client or user (an API key is the gateway's, not a table's)."""
    tmp = tmp_path_factory.mktemp("empty-stage")
    seed = tmp / "seed.json"
    seed.write_text(json.dumps({"api_keys": [{"value": API_KEY, "usage_plan": "StandardUsagePlan"}]}))
    with running_stack(tmp, "--seed", str(seed)) as stack:
        yield stack


def local(command: str, stack: LocalStack) -> str:
    assert "--stack-name authgate-staging" in command, command
    return command.replace("--stack-name authgate-staging", f"--url {stack.base_url}")


def test_a_person_follows_deploy_md_to_a_first_sign_in(empty_stack: LocalStack, tmp_path: Path) -> None:
    env = {**empty_stack.env(), "ISSUER": empty_stack.base_url}
    first = commands(sh_blocks(section("## 3. The first tenant, client and user", "### A first sign-in"))[0])
    assert first[0].startswith("ISSUER=$(aws cloudformation describe-stacks --stack-name authgate-staging")
    setup = [c for c in first[1:] if " tenants create " in c or " users create " in c]
    assert len(setup) == 2 and "--username alice" in setup[1]
    for command in setup:
        password = " users create " in command
        done = subprocess.run(local(command, empty_stack) + (" --password-stdin" if password else ""), shell=True,
                              env=env, cwd=REPO_ROOT, input=f"{PASSWORD}\n" if password else None,
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, (command, done.stderr)

    sign_in = sh_blocks(section("### A first sign-in", "## 4. Check the stage"))
    assert len(sign_in) == 2 and "code=CODE" in sign_in[1]
    fifo = tmp_path / "code"
    os.mkfifo(fifo)
    lines = sign_in[0].splitlines()
    script = "\n".join(["set -eu", *[local(line, empty_stack) if "--stack-name" in line else line for line in lines],
                        f'read -r CODE < "{fifo}"',
                        sign_in[1].replace("code=CODE", 'code="$CODE"')])
    shell = subprocess.Popen(["bash", "-c", script], env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert shell.stdout is not None
        url = ""
        for line in shell.stdout:  # the client's id, then the authorization URL the doc prints
            if line.startswith(empty_stack.base_url):
                url = line.strip()
                break
        assert url.startswith(f"{empty_stack.base_url}/oauth/authorize?"), shell.stderr.read() if shell.stderr else ""
        code = browser_sign_in(url, "alice", PASSWORD)
        fifo.write_text(code + "\n")
        out, err = shell.communicate(timeout=60)
    finally:
        if shell.poll() is None:
            shell.kill()
    assert shell.returncode == 0, err
    token = json.loads(out.strip().splitlines()[-1])
    assert (token["token_type"], token["scope"]) == ("Bearer", "charges:read")
    charges = requests.get(f"{empty_stack.base_url}/charges", timeout=10, headers={
        "x-api-key": API_KEY, "Authorization": f"Bearer {token['access_token']}"})
    assert charges.status_code == 200, charges.text
    assert charges.json()["data"] == []


def browser_sign_in(url: str, username: str, password: str) -> str:
    """Open the URL, sign in, choose Approve; the code from the address bar of the page that fails to load."""
    with chromium() as browser:
        context = browser.new_context()
        # Nothing listens on the doc's redirect URI: the person sees an error page, the test a stub.
        context.route("http://127.0.0.1:8765/**", lambda route: route.fulfill(status=502, body="nothing here"))
        page = context.new_page()
        page.goto(url)
        page.fill("#username", username)
        page.fill("#password", password)
        page.click("button[name=decision][value=approve]")
        page.wait_for_url("http://127.0.0.1:8765/callback?*")
        query = parse_qs(urlsplit(page.url).query)
        context.close()
    assert query["state"] == ["first"]
    return query["code"][0]
