"""account.allowed_apps: the section listing what a person allowed (names escaped) and "Remove access"'s message."""

from __future__ import annotations

from authgate.account import allowed_apps
from authgate.account.signed_in import Account
from authgate.clock import ManualClock
from authgate.http.pages.messages import Done
from authgate.stores.consents import ConsentStore

ALICE = Account("demo", "alice", "usr_0123456789abcdefghijkl")
CSRF = '<input type="hidden" name="csrf" value="c">'


def test_the_section_lists_each_client_by_name_with_its_scopes_and_when(aws: None, clock: ManualClock) -> None:
    from authgate.clients.model import Client
    from authgate.stores.clients import ClientStore

    ClientStore().put(Client(client_id="web", tenant_id="demo", environment="local", client_type="public",
                             secret_hash=None, redirect_uris=(), grant_types=("authorization_code",),
                             scopes=("openid",), name="<Web & co>"))
    assert allowed_apps.section(ALICE, CSRF) == "<h2>Apps you've allowed</h2>\n<p>You have not allowed any application.</p>"
    ConsentStore().remember("demo", ALICE.user_id, "web", ("openid",), None)
    ConsentStore().remember("demo", ALICE.user_id, "gone", ("mcp:read",), "https://files.example/api")
    when = "2025-06-15 15:06 UTC"
    assert clock() == 1_750_000_000
    assert allowed_apps.section(ALICE, CSRF).splitlines()[:3] == [
        "<h2>Apps you've allowed</h2>", '<ul class="apps">',
        f'<li><strong class="app-name">gone</strong> · <code>mcp:read</code> at https://files.example/api · allowed {when}']
    assert f'<li><strong class="app-name">&lt;Web &amp; co&gt;</strong> · <code>openid</code> · allowed {when}' in \
        allowed_apps.section(ALICE, CSRF)


def test_removing_access_says_so_once(aws: None, clock: ManualClock) -> None:
    ConsentStore().remember("demo", ALICE.user_id, "web", ("openid",), None)
    done = allowed_apps.act(ALICE, {"client_id": "web"})
    assert isinstance(done, Done) and done == "web no longer has access to your account: it will ask you again."
    again = allowed_apps.act(ALICE, {"client_id": "web"})
    assert not isinstance(again, Done) and again == allowed_apps.GONE
    assert allowed_apps.act(ALICE, {}) == allowed_apps.GONE
