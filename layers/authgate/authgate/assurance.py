"""How strongly a person signed in: `acr` values, `amr` values (RFC 8176 2) and the sign-in's time.

The one place both are named. Two authentication context classes (OIDC Core 2, `acr`): `password`,
a password alone, and `mfa`, a password and a second factor or a passkey with user verification.
Discovery announces ACR_VALUES (acr_values_supported), the authorization request reads
`acr_values` against them, sessions, codes and refresh families record the `Assurance` of the
sign-in that made the grant, and access and ID tokens state its `acr`, `amr` and `auth_time`
(RFC 9068 2.2.1, OIDC Core 2); a refresh never raises them.
"""

from __future__ import annotations

from typing import NamedTuple

PASSWORD = "password"
MFA = "mfa"
# The catalogue of acr values, weakest first (acr_values_supported; a stronger one satisfies a weaker one).
ACR_VALUES = (PASSWORD, MFA)
# RFC 8176 2 methods a sign-in can be made of: a password, a one-time or recovery code, a
# device-bound or synced passkey, and the authenticator's user verification.
PWD, OTP, HWK, SWK, USER = "pwd", "otp", "hwk", "swk", "user"
# RFC 8176 2 "mfa": added to the methods of a sign-in that used more than one factor.
MULTIPLE_FACTORS = "mfa"
# A sign-in made at another party, a tenant's identity provider (authgate.federation.assurance): RFC 8176
# registers no value for it; "fed" is authgate's, unregistered, as RFC 8176 1 allows. It is a first factor, as a
# password is: authgate's own second factor after it makes `mfa`.
FEDERATED = "fed"
# The amr of a password alone.
PASSWORD_AMR = (PWD,)
# The amr the CIBA approval page states for its password and code, in the order it always has (the order
# of `assurance_of` is sorted: otp, pwd, mfa); the same sign-in, the same acr.
PASSWORD_AND_CODE_AMR = (PWD, OTP, MULTIPLE_FACTORS)
METHODS = frozenset({PWD, OTP, HWK, SWK, USER, FEDERATED})


class Assurance(NamedTuple):
    """The sign-in behind a grant: when it happened (epoch seconds), its acr and its amr."""

    auth_time: int
    acr: str
    amr: tuple[str, ...]


def assurance_of(methods: frozenset[str], now: int) -> Assurance:
    """The acr and amr (RFC 8176 2) of a sign-in made of `methods`, now.

    mfa: a password and a one-time code (pwd + otp), or a passkey with user verification (hwk or swk,
    plus user: possession and a PIN or biometric), or a password and a passkey; amr then adds "mfa". A
    sign-in at an identity provider (fed) counts as the password does, for the second factor after it.
    A password alone is `password`. Anything else (a passkey without user verification alone, an
    unknown method) is no sign-in at all: ValueError.
    """
    unknown = methods - METHODS
    if unknown or not methods:
        raise ValueError(f"not a sign-in: {sorted(unknown) or 'no method'}")
    passkey = bool(methods & {HWK, SWK})
    first = bool(methods & {PWD, FEDERATED})
    two_factors = (first and (OTP in methods or passkey)) or (passkey and USER in methods)
    amr = tuple(sorted(methods)) + ((MULTIPLE_FACTORS,) if two_factors else ())
    if two_factors:
        return Assurance(now, MFA, amr)
    if methods == {PWD}:
        return Assurance(now, PASSWORD, amr)
    raise ValueError(f"not a sign-in: {sorted(methods)} is neither a password nor two factors")


def satisfies(acr: str, required: str) -> bool:
    """Whether a sign-in of `acr` meets `required` (acr_values, RFC 9470 3): at least as strong in ACR_VALUES."""
    return acr in ACR_VALUES and required in ACR_VALUES and ACR_VALUES.index(acr) >= ACR_VALUES.index(required)


def password_sign_in(now: int) -> Assurance:
    """A sign-in with a password alone, now (RFC 8176 2: `pwd`)."""
    return assurance_of(frozenset(PASSWORD_AMR), now)


def passkey_methods(synced: bool, user_verified: bool) -> tuple[str, ...]:
    """RFC 8176 2 values of a sign-in with a passkey: hwk for a device-bound key, swk for a synced one
    (backup-eligible), user when the authenticator verified the user, mfa for possession plus verification."""
    kind = SWK if synced else HWK
    return (kind, USER, MULTIPLE_FACTORS) if user_verified else (kind,)
