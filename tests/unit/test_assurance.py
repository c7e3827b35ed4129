"""assurance: acr and amr (RFC 8176 2) from the methods of a sign-in; which acr satisfies which."""

from __future__ import annotations

import pytest

from authgate.assurance import (
    ACR_VALUES,
    Assurance,
    assurance_of,
    password_sign_in,
    satisfies,
)


@pytest.mark.parametrize(("methods", "acr", "amr"), [
    ({"pwd"}, "password", ("pwd",)),
    ({"pwd", "otp"}, "mfa", ("otp", "pwd", "mfa")),
    ({"hwk", "user"}, "mfa", ("hwk", "user", "mfa")),
    ({"swk", "user"}, "mfa", ("swk", "user", "mfa")),
    ({"pwd", "hwk"}, "mfa", ("hwk", "pwd", "mfa")),
    ({"pwd", "swk", "user"}, "mfa", ("pwd", "swk", "user", "mfa")),
    # A sign-in at an identity provider, then authgate's own second factor (docs/federation.md, step-up).
    ({"fed", "otp"}, "mfa", ("fed", "otp", "mfa")),
    ({"fed", "hwk", "user"}, "mfa", ("fed", "hwk", "user", "mfa")),
])
def test_the_methods_give_the_acr_and_amr(methods: set[str], acr: str, amr: tuple[str, ...]) -> None:
    assert assurance_of(frozenset(methods), 100) == Assurance(100, acr, amr)


@pytest.mark.parametrize("methods", [set(), {"hwk"}, {"otp"}, {"user"}, {"pwd", "sms"}, {"fed"}])
def test_what_is_not_a_sign_in(methods: set[str]) -> None:
    with pytest.raises(ValueError, match="not a sign-in"):
        assurance_of(frozenset(methods), 100)


def test_a_stronger_acr_satisfies_a_weaker_one_and_nothing_unknown_does() -> None:
    assert ACR_VALUES == ("password", "mfa")
    assert password_sign_in(7) == Assurance(7, "password", ("pwd",))
    assert satisfies("mfa", "mfa") and satisfies("mfa", "password") and satisfies("password", "password")
    assert not satisfies("password", "mfa") and not satisfies("", "mfa") and not satisfies("mfa", "gold")
