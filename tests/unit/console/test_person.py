"""console.person: one person's page: profile and state, the actions the operator's roles allow (Enable for a
disabled person, Disable otherwise), live sign-in sessions, second factors (never a secret), linked identities and
consents with their own actions for an owner, and recent events; `people.view` judged in the tenant first."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.console.person import get_person
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, signed, tenants

TOTP = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
PROFILE = ("<b>ann</b> (acme) Profile Username <b>ann</b> User id usr_ann Name Ann <i>A</i> Email ann@acme.example "
           "(verified) State active Created 2025-06-15 15:06:40 UTC Updated 2025-06-15 15:06:40 UTC Sessions ended "
           "before never ")
DETAILS = ("Sign-in sessions 1 live sign-in session Signed in How Last active Applications 2025-06-15 15:06:40 UTC "
           "mfa (pwd otp mfa) 2025-06-15 15:06:40 UTC - Second factors One-time code set up (0 recovery codes left) "
           "Passkey <Phone> created 2025-06-15 15:06:40 UTC, last used never ")
EVENTS = "Recent events No event of the last 24 hours names <b>ann</b>."


def _ann() -> list[tuple[str, str]]:
    return [("tenant", "acme"), ("username", "<b>ann</b>")]


@pytest.fixture
def ann(aws: None, clock: ManualClock) -> None:
    """<b>ann</b> of acme, with a session, a one-time code, a passkey, a linked identity and a consent."""
    from authgate.stores.consents import ConsentStore
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.sessions import SessionStore
    from authgate.stores.user_factors import UserFactorStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity
    from authgate.users.passkeys import Passkey

    tenants("acme", "globex")
    UserStore().put_hash("acme", "<b>ann</b>", "not-a-hash", user_id="usr_ann", name="Ann <i>A</i>",
                         email="ann@acme.example", email_verified=True)
    UserFactorStore().set_totp("acme", "<b>ann</b>", TOTP)
    PasskeyStore().add(Passkey("cred-1", "acme", "<b>ann</b>", "cose", 0, "<Phone>", int(clock())))
    SessionStore().create(tenant_id="acme", user_id="usr_ann", username="<b>ann</b>", acr="mfa",
                          amr=("pwd", "otp", "mfa"), generation=0)
    LinkedIdentityStore().link(LinkedIdentity("acme", "https://idp.example", "sub-1", "usr_ann", "<b>ann</b>",
                                              int(clock()), "proof"))
    ConsentStore().remember("acme", "usr_ann", "web", ("openid", "profile"), None)
    ConsentStore().remember("acme", "usr_ann", "agent", ("mcp:read",), "https://mcp.example")


@pytest.mark.usefixtures("ann")
def test_an_owner_sees_everything_and_every_action() -> None:
    answer = get_person(get("person", _ann()), signed("owner"))
    assert main_text(answer) == (
        PROFILE + "Actions Edit Disable Unlock Reset the second factor End the sessions Send a reset link Set a "
        "temporary password Delete " + DETAILS + "Linked identities 1 linked identity Identity provider Subject "
        "Linked Action https://idp.example sub-1 2025-06-15 15:06:40 UTC (proof) Unlink Consents 2 remembered "
        "consents Client Scopes Action agent mcp:read (for https://mcp.example) Withdraw web openid profile Withdraw "
        + EVENTS + " Every event of <b>ann</b>")
    body = str(answer.body)
    assert TOTP not in body and "<b>ann" not in body and "<Phone>" not in body
    assert ('<a href="http://127.0.0.1:3000/console/act?tenant=acme&amp;username=%3Cb%3Eann%3C%2Fb%3E&amp;'
            'action=unlink&amp;idp=https%3A%2F%2Fidp.example">Unlink</a>') in body


@pytest.mark.usefixtures("ann")
def test_support_helps_and_changes_nothing_of_the_profile() -> None:
    assert main_text(get_person(get("person", _ann()), signed("support", "acme"))) == (
        PROFILE + "Actions Disable Unlock Reset the second factor End the sessions Send a reset link " + DETAILS
        + "Linked identities 1 linked identity Identity provider Subject Linked https://idp.example sub-1 2025-06-15 "
        "15:06:40 UTC (proof) Consents 2 remembered consents Client Scopes agent mcp:read (for https://mcp.example) "
        "web openid profile " + EVENTS)


@pytest.mark.usefixtures("ann")
def test_an_auditor_reads_and_a_disabled_person_is_offered_enable() -> None:
    from authgate.stores.users import UserStore

    assert "Actions" not in main_text(get_person(get("person", _ann()), signed("auditor")))
    UserStore().set_disabled("acme", "<b>ann</b>", True)
    text = main_text(get_person(get("person", _ann()), signed("owner")))
    assert "State disabled " in text and " Actions Edit Enable Unlock " in text
    assert "Sign-in sessions No sign-in session is live. " in text  # a disabled person's sessions stand no more


def test_a_person_with_an_unverified_email_and_nothing_else(aws: None, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    tenants("acme")
    UserStore().put_hash("acme", "bob", "not-a-hash", user_id="usr_bob", email="bob@acme.example")
    assert main_text(get_person(get("person", [("tenant", "acme"), ("username", "bob")]), signed("auditor"))) == (
        "bob (acme) Profile Username bob User id usr_bob Name - Email bob@acme.example (not verified) State active Created 2025-06-15 15:06:40 UTC "
        "Updated 2025-06-15 15:06:40 UTC Sessions ended before never Sign-in sessions No sign-in session is live. Second factors One-time code not set up "
        "Passkeys none Linked identities No identity at an identity provider is linked. Consents No application "
        "holds a remembered consent. Recent events No event of the last 24 hours names bob. Every event of bob")


@pytest.mark.usefixtures("ann")
@pytest.mark.parametrize(("query", "operator", "code", "detail"), [
    ([("tenant", "acme")], "owner", "invalid_request", "Name the person with tenant and username."),
    ([("username", "ann")], "owner", "invalid_request", "Name the person with tenant and username."),
    ([("tenant", "acme"), ("username", "zed")], "owner", "not_found", "There is no person 'zed' in tenant 'acme'."),
    ([("tenant", "globex"), ("username", "zed")], "support", "operator_forbidden",
     "Your roles (support (acme)) do not allow this in tenant globex."),
    ([("tenant", "acme"), ("username", "zed")], "admin", "operator_forbidden",
     "Your roles (admin) do not allow this in tenant acme."),
], ids=["no-username", "no-tenant", "nobody", "support-elsewhere", "admin"])
def test_a_person_not_named_not_there_or_not_allowed(query: list[tuple[str, str]], operator: str,
                                                     code: str, detail: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_person(get("person", query), signed(operator, "acme") if operator == "support" else signed(operator))
    assert (refused.value.code, refused.value.detail) == (code, detail)
