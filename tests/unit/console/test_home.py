"""console.home: who is signed in, with which roles, until when, and the sections their roles open; every name
escaped where it is written."""

from __future__ import annotations

import pytest

from authgate.console.home import get_home
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, signed


def test_the_home_page_of_an_owner_lists_every_section(aws: None) -> None:
    answer = get_home(get(""), signed("owner"))
    assert main_text(answer) == (
        "Console You are olivia (Olivia), with the roles owner. You signed in at 2025-06-15 15:06:40 UTC; this "
        "sign-in serves the console until 2025-06-16 03:06:40 UTC, then you sign in again. What you can open "
        "People: find a person by username, email or id, and see their account "
        "Clients: a tenant's clients and each one's registration; register, change, rotate a secret, delete "
        "Resources: the APIs tokens are issued for: register, change, delete "
        "Tenants: every tenant and its settings: currencies, second factor, strong authentication for charges, which "
        "applications its people may allow "
        "Identity providers: the identity providers a tenant's people sign in with "
        "Keys: the signing keys, their states and public keys; rotate them; the SAML request-signing keys "
        "Events: what happened, and who did it: the audit trail's events "
        "Operators: the console's operators and their roles")
    assert '<li><a href="http://127.0.0.1:3000/console/people">People</a>: find a person' in str(answer.body)


def test_support_is_offered_the_people_of_its_tenants_only(aws: None) -> None:
    text = main_text(get_home(get(""), signed("support", "acme", name="")))
    assert text.startswith("Console You are olivia, with the roles support (acme). You signed in at ")
    assert text.endswith("What you can open People: find a person by username, email or id, and see their account")


def test_a_hostile_name_is_shown_as_text(aws: None) -> None:
    body = str(get_home(get(""), signed("auditor", username="<b>eve</b>", name='"><script>x()</script>')).body)
    assert "<script>" not in body and "<b>eve</b>" not in body
    assert "<strong>&lt;b&gt;eve&lt;/b&gt;</strong> (&quot;&gt;&lt;script&gt;x()&lt;/script&gt;)" in body


def test_an_operator_without_a_role_is_refused(aws: None) -> None:
    from authgate.console.session import SignedIn

    nobody = signed("owner")
    with pytest.raises(ApiError) as refused:
        get_home(get(""), SignedIn(nobody.session, nobody.operator._replace(roles=())))
    assert (refused.value.code, refused.value.detail) == ("operator_forbidden", "Your roles (none) do not allow this.")
