"""Sign-out through an upstream OpenID Provider nobody here wrote (panva's oidc-provider), through a real
`authgate serve`: RP-Initiated Logout 1.0 from authgate to the provider and back, and the provider's
Back-Channel Logout 1.0 token ending the authgate session it started.

The sign-in at the provider is real (a real HTTP client through its login page; authgate's relying party
redeems the code and validates the ID token); the authgate session that sign-in would open is then written
into the running stack as the sign-in does (the stack's own tables, its own sealing key: `seeded`), since
the sign-in page's upstream step is another branch's. Everything after that is the stack's routes, the
provider's pages and the provider's own back-channel call.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.document_server import DocumentServer, document_server
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import REPO_ROOT, LocalStack, running_stack
from tests.e2e.upstream_oidc_support import (
    CLIENT_ID,
    CLIENT_SECRET,
    REDIRECT_URI,
    Browser,
    UpstreamProvider,
    act_as_relying_party,
    client,
    oidc_provider,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ALICE = "usr_demoalice0000000000000"
IDP_ID = "interop"

# Run in a process aimed at the stack, as an admin command is (its tables, its session secret): the session a
# federated sign-in opens (with its sessions.model.Upstream), its cookie secret out.
SEED = """
import argparse, json, sys
from authgate_cli.admin import target
target.use(argparse.Namespace(url=None, stack_name=None, region=None))
from authgate.federation.secrets import seal_id_token
from authgate.sessions.model import Upstream
from authgate.stores.sessions import SessionStore
a = json.loads(sys.stdin.read())
upstream = Upstream(a["issuer"], a["idp_id"], "oidc", a["sub"], sid=a["sid"],
                    id_token=seal_id_token("demo", a["issuer"], a["sub"], a["id_token"]))
secret, session = SessionStore().create(tenant_id="demo", user_id=a["user_id"], username="alice", acr="password",
                                        amr=("fed",), generation=0, upstream=upstream)
# What demo-web holds after its sign-in in that session: authgate's ID token naming it (its id_token_hint).
from authgate.oauth.token.id_token import issue_id_token
from authgate.single_use.authentication import Authentication
from authgate.settings import get_settings
hint = issue_id_token(issuer=get_settings().issuer, client_id="demo-web", access_token="at",
                      authentication=Authentication(user_id=a["user_id"], auth_time=session.auth_time, sid=session.sid))
print(json.dumps({"secret": secret, "sid": session.sid, "hint": hint}))
"""


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    """The test CA and a certificate for 127.0.0.1 (the provider serves https with it; the stack trusts the CA)."""
    with document_server(tmp_path_factory.mktemp("tls")) as server:
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, tls: DocumentServer) -> Iterator[LocalStack]:
    with running_stack(tmp_path_factory.mktemp("upstream-logout"), "--allow-loopback-outbound",
                       env_extra={"SSL_CERT_FILE": str(tls.ca)}) as serve:
        yield serve


@pytest.fixture(scope="module")
def provider(stack: LocalStack, tls: DocumentServer, tmp_path_factory: pytest.TempPathFactory,
             ) -> Iterator[UpstreamProvider]:
    """oidc-provider with authgate registered as the docs say (`authgate idps show` prints these URIs), and the
    stack's record of it made by `authgate idps create`."""
    base = stack.base_url
    registration = client(post_logout_redirect_uris=[f"{base}/oauth/federation/logged-out"],
                          backchannel_logout_uri=f"{base}/oauth/federation/demo/{IDP_ID}/backchannel-logout",
                          backchannel_logout_session_required=True)
    directory = tls.ca.parent
    with oidc_provider(tls.ca, directory / "server.pem", directory / "server.key", [registration]) as op:
        secret = tmp_path_factory.mktemp("secret") / "client-secret.txt"
        secret.write_text(CLIENT_SECRET + "\n")
        done = admin(stack, "idps", "create", "--tenant", "demo", "--issuer", op.issuer, "--protocol", "oidc",
                     "--client-id", CLIENT_ID, "--client-secret-file", str(secret), "--id", IDP_ID,
                     "--label", "Interop SSO", "--json")
        assert done.returncode == 0, done.stderr
        shown = json.loads(admin(stack, "idps", "show", "--tenant", "demo", "--issuer", op.issuer, "--json").stdout)
        assert (shown["post_logout_redirect_uri"], shown["backchannel_logout_uri"]) == (
            registration["post_logout_redirect_uris"][0], registration["backchannel_logout_uri"])
        yield op


@pytest.fixture(autouse=True)
def relying_party(tls: DocumentServer, monkeypatch: pytest.MonkeyPatch, aws: None) -> None:
    """This process redeems the provider's code as authgate's relying party does."""
    act_as_relying_party(tls.ca, monkeypatch)


def signed_in_upstream(op: UpstreamProvider, login: str = "carol") -> tuple[Browser, Any]:
    """`login` signs in at the provider (its login page, its session cookie in this browser); the identity
    authgate's relying party takes from that sign-in (federation.oidc.sign_in.finish: the code redeemed with PKCE,
    the ID token validated), whose `sid` and ID token the session keeps."""
    from authgate.federation import secrets as sealing
    from authgate.federation.oidc.sign_in import finish, start
    from authgate.identity_providers.model import IdentityProvider

    idp = IdentityProvider("demo", op.issuer, idp_id=IDP_ID, protocol="oidc", sign_in=True, client_id=CLIENT_ID,
                           client_secret=sealing.seal("demo", op.issuer, "client_secret", CLIENT_SECRET))
    state, nonce, verifier = "s" * 22, "n" * 22, "v" * 48
    browser = Browser(op)
    params = browser.sign_in(start(idp, redirect_uri=REDIRECT_URI, state=state, nonce=nonce,
                                   code_verifier=verifier), login)
    identity = finish(idp, params=params, redirect_uri=REDIRECT_URI, expected_state=state, nonce=nonce,
                      code_verifier=verifier)
    assert identity.session_id and identity.id_token
    return browser, identity


def seeded(stack: LocalStack, op: UpstreamProvider, identity: Any, browser: Browser) -> dict[str, str]:
    """The authgate session that sign-in opens for alice, its cookie in `browser`: its sid, and demo-web's ID token
    of it (`hint`)."""
    done = subprocess.run([sys.executable, "-c", SEED], cwd=REPO_ROOT, env=stack.env(), capture_output=True,
                          text=True, timeout=60, check=False,
                          input=json.dumps({"issuer": op.issuer, "idp_id": IDP_ID, "sub": identity.subject,
                                            "sid": identity.session_id, "id_token": identity.id_token,
                                            "user_id": ALICE}))
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout.splitlines()[-1])
    browser.session.cookies.set("authgate_session", made["secret"], domain="127.0.0.1", path="/")
    assert made["sid"] in live_sids(stack)
    return {k: str(v) for k, v in made.items()}


def live_sids(stack: LocalStack) -> list[str]:
    done = admin(stack, "users", "sessions", "--tenant", "demo", "--username", "alice", "--json")
    assert done.returncode == 0, done.stderr
    return [s["sid"] for s in json.loads(done.stdout)]


def backchannel_failures(op: UpstreamProvider) -> int:
    """How many back-channel logout calls the provider logged as failed (provider.mjs prints each error)."""
    return op.log().count("backchannel.error")


def test_signing_out_at_authgate_signs_out_at_the_provider_and_comes_back(stack: LocalStack,
                                                                          provider: UpstreamProvider) -> None:
    browser, identity = signed_in_upstream(provider)
    session = seeded(stack, provider, identity, browser)
    http = browser.session
    base = stack.base_url
    shown = admin(stack, "clients", "show", "demo-web", "--json")
    assert shown.returncode == 0, shown.stderr
    (application,) = json.loads(shown.stdout)["post_logout_redirect_uris"]

    # demo-web signs the person out (RP-Initiated Logout 1.0 at authgate): its ID token names this session.
    left = http.get(f"{base}/oauth/logout", params={"id_token_hint": session["hint"], "state": "app-state",
                                                     "post_logout_redirect_uri": application},
                    timeout=10, allow_redirects=False)
    assert left.status_code == 302, left.text[:300]
    assert session["sid"] not in live_sids(stack)  # authgate's session ended before the browser left
    end_session = urlsplit(left.headers["Location"])
    query = {k: v[0] for k, v in parse_qs(end_session.query).items()}
    assert f"{end_session.scheme}://{end_session.netloc}{end_session.path}" == f"{provider.issuer}/session/end"
    assert query == {"id_token_hint": identity.id_token, "state": query["state"], "client_id": CLIENT_ID,
                     "post_logout_redirect_uri": f"{base}/oauth/federation/logged-out"}
    assert "authgate_session=;" in left.headers["Set-Cookie"] and "authgate_logout=" in left.headers["Set-Cookie"]

    # The provider's own confirmation (it validated the id_token_hint and the registered return), then back.
    back = browser.log_out(left.headers["Location"])
    assert back == f"{base}/oauth/federation/logged-out?state={query['state']}"
    done = http.get(back, timeout=10, allow_redirects=False)
    assert (done.status_code, done.headers["Location"], done.headers["Cache-Control"], done.text) == (
        302, f"{application}?state=app-state", "no-store", "")  # on to the application, with its state
    assert "authgate_logout=;" in done.headers["Set-Cookie"]

    # The provider's session is over: a new sign-in there asks for the login again.
    from authgate.federation.oidc.sign_in import start
    from authgate.identity_providers.model import IdentityProvider

    again, page = browser.visit(start(IdentityProvider("demo", provider.issuer, protocol="oidc", client_id=CLIENT_ID),
                                      redirect_uri=REDIRECT_URI, state="t" * 22, nonce="m" * 22,
                                      code_verifier="w" * 48))
    assert again == "" and 'name="login"' in page.text


def test_the_provider_s_own_sign_out_ends_the_authgate_session_it_started(stack: LocalStack,
                                                                          provider: UpstreamProvider) -> None:
    browser, identity = signed_in_upstream(provider)
    other_browser, other_identity = signed_in_upstream(provider)
    ended = seeded(stack, provider, identity, browser)["sid"]
    kept = seeded(stack, provider, other_identity, other_browser)["sid"]
    failures = backchannel_failures(provider)

    # The person signs out at the provider itself (another application's sign-out, say): no authgate in the way.
    left, page = browser.visit(f"{provider.issuer}/session/end")
    assert left == "" and page.status_code == 200
    action = page.text.split('action="', 1)[1].split('"', 1)[0]
    xsrf = page.text.split('name="xsrf" value="', 1)[1].split('"', 1)[0]
    browser.visit(f"{provider.issuer}{action}" if action.startswith("/") else action, data={"xsrf": xsrf,
                                                                                            "logout": "yes"})

    # oidc-provider POSTs its logout token to authgate's back-channel logout URI (after the page, asynchronously).
    deadline = time.monotonic() + 20
    while ended in live_sids(stack) and time.monotonic() < deadline:
        time.sleep(0.2)
    sids = live_sids(stack)
    assert ended not in sids and kept in sids  # exactly the session that upstream session started
    assert backchannel_failures(provider) == failures, provider.log()
