"""console.tenant: one tenant's settings in words and what each means, the links its operator's roles allow
(its people, its settings' form), `tenants.view` judged in the tenant before it is read."""

from __future__ import annotations

import pytest

from authgate.administration.tenant_settings import SETTINGS
from authgate.console.tenant import get_tenant, words
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, signed, tenants

# The page of a tenant of the demo seed's settings, as a person reads it.
WHOLE = (
    "Tenant acme People of acme Change the settings Settings Tenant id acme Name acme The tenant as people read it. "
    "Currencies usd The currencies its charges may use (ISO 4217 codes, at least one). Forbidden scopes none What "
    "its people may never allow an application to do, whatever the application asks. Approved applications none "
    "Applications registered to need an administrator's approval that this tenant's administrator approved: its "
    "people may sign in to them. Applications known by a metadata document none Its people may allow applications "
    "whose metadata document is on these hosts (a leading dot: any host under that domain; *: anywhere). "
    "Self-registered applications no Whether its people may allow applications that registered themselves. "
    "Self-registered applications at most 100 How many self-registered applications it holds at most. Login "
    "domains none People whose email address is at one of these domains sign in with it, without typing the "
    "organisation (a domain belongs to one tenant). Second factor for charges from off A charge of at least this "
    "amount (in minor units, cents) needs a sign-in with a second factor; off: no charge does. Age of that sign-in, "
    "at most 300 seconds How old that sign-in may be. Second factor required no Whether every sign-in of its people "
    "needs a second factor (a one-time code or a passkey) after the password; someone without one sets one up at "
    "their next sign-in. Approval webhook off Where the approval link of each backchannel request is posted (OpenID "
    "Connect CIBA); off: nowhere.")


@pytest.fixture
def acme(aws: None) -> None:
    tenants("acme", "globex")


def _setting(field: str) -> object:
    return next(s for s in SETTINGS if s.field == field)


def test_a_tenants_settings_in_words(acme: None) -> None:
    answer = get_tenant(get("tenant", [("tenant", "acme")]), signed("owner"))
    assert main_text(answer) == WHOLE
    assert '<a href="http://127.0.0.1:3000/console/tenant-update?tenant=acme">Change the settings</a>' in str(
        answer.body)


def test_a_tenants_words_are_escaped(aws: None) -> None:
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "acme", "name": "<i>Acme</i>", "currencies": ["usd"], "forbidden_scopes": [],
           "approved_clients": []}])
    body = str(get_tenant(get("tenant", [("tenant", "acme")]), signed("owner")).body)
    assert "<i>Acme" not in body and "<dt>Name</dt><dd>&lt;i&gt;Acme&lt;/i&gt;<br>" in body


def test_the_links_are_those_the_roles_allow(acme: None) -> None:
    assert main_text(get_tenant(get("tenant", [("tenant", "acme")]), signed("admin"))).startswith(
        "Tenant acme Change the settings Settings ")
    assert main_text(get_tenant(get("tenant", [("tenant", "acme")]), signed("auditor"))).startswith(
        "Tenant acme People of acme Settings ")


@pytest.mark.parametrize(("query", "operator", "code", "detail"), [
    ([], "owner", "invalid_request", "Name the tenant with tenant."),
    ([("tenant", "nowhere")], "owner", "not_found", "There is no tenant 'nowhere'."),
    ([("tenant", "nowhere")], "support", "operator_forbidden",
     "Your roles (support (acme)) do not allow this in tenant nowhere."),
    ([("tenant", "a" * 65)], "owner", "invalid_request",
     "The tenant parameter is too long or holds control characters."),
], ids=["none", "unknown", "support", "long"])
def test_a_tenant_not_named_not_there_or_not_allowed(acme: None, query: list[tuple[str, str]], operator: str,
                                                     code: str, detail: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_tenant(get("tenant", query), signed(operator, "acme") if operator == "support" else signed(operator))
    assert (refused.value.code, refused.value.detail) == (code, detail)


def test_a_settings_value_in_words() -> None:
    switch = next(s for s in SETTINGS if s.kind == "switch")
    assert (words(switch, True), words(switch, False)) == ("yes", "no")
    assert words(_setting("currencies"), ("usd", "eur")) == "usd, eur"  # as held
    assert words(_setting("forbidden_scopes"), frozenset("hgfedcba")) == "a, b, c, d, e, f, g, h"  # a set: sorted
    assert words(_setting("currencies"), ()) == "none"
    assert words(_setting("sca_threshold"), None) == "off"
    assert words(_setting("sca_max_age"), 300) == "300 seconds"
