"""The stack's SAML signing keys by hand (federation.saml.sp_keys): what `authgate saml-keys` calls.

`listed()` the keys, the signing one first; `add()` makes a key (RSA 3072, self-signed certificate) and
stores it last -- the stack's first key signs at once, a later one is only published beside the
signing one until `retire()` drops the first and it signs. A key is shown by its certificate's
fingerprint and dates, never by its private half. `found()` is one key by the fingerprint an operator gives (checked
first), and `added()`, `retired()` say what was done: the command and the console say the same.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from authgate.operators.input import InvalidInput


class Shown(NamedTuple):
    """One key as an operator sees it."""

    fingerprint: str
    not_after: int
    created_at: int
    signs: bool
    certificate: str


_FINGERPRINT = re.compile(r"[0-9A-F]{2}(:[0-9A-F]{2}){31}")


def common_name(issuer: str) -> str:
    """The certificate's common name: the stack's issuer (or whatever names the stack when it has none)."""
    return f"authgate SAML SP {issuer}"


def checked(fingerprint: str) -> str:
    """`fingerprint` as the keys are named (upper case); InvalidInput when it is not a SHA-256 fingerprint."""
    if not _FINGERPRINT.fullmatch(fingerprint.upper()):
        raise InvalidInput(f"FINGERPRINT {fingerprint!r} is not a SHA-256 fingerprint (32 hex pairs joined by colons, "
                           "as `authgate saml-keys list` prints it)")
    return fingerprint.upper()


def found(fingerprint: str) -> Shown | None:
    """The key of that certificate fingerprint (None: the stack has none); InvalidInput for a malformed one."""
    named = checked(fingerprint)
    return next((k for k in listed() if k.fingerprint == named), None)


def added(key: Shown) -> str:
    """What adding `key` did, as both callers say it."""
    return f"added, {'signing' if key.signs else 'published beside the signing key'}: {key.fingerprint}"


def retired(key: Shown) -> str:
    """What retiring `key` did, as both callers say it."""
    return f"retired: {key.fingerprint}"


def listed() -> list[Shown]:
    """The stack's keys, the one that signs first (none: requests go unsigned)."""
    from authgate.stores.saml_sp_keys import SamlSpKeyStore

    return [_shown(k.certificate, k.created_at, i == 0) for i, k in enumerate(SamlSpKeyStore().read().keys)]


def add(common_name: str, now: int | None = None) -> Shown:
    """A new key stored after the others; InvalidInput when there are two already (retire one first)."""
    from authgate import clock
    from authgate.federation.saml import sp_keys
    from authgate.stores.saml_sp_keys import SamlSpKeyStore, StoredKey

    store = SamlSpKeyStore()
    read = store.read()
    if len(read.keys) >= 2:
        raise InvalidInput("the stack has two SAML signing keys already: retire the signing one first")
    created = clock.seconds() if now is None else now
    private_pem, certificate = sp_keys.generate(common_name, created)
    store.write((*read.keys, StoredKey(certificate, sp_keys.seal(private_pem, certificate), created)), read)
    return _shown(certificate, created, not read.keys)


def retire() -> Shown:
    """Drop the signing key (the next one signs; with none left, requests go unsigned); InvalidInput with no key."""
    from authgate.stores.saml_sp_keys import SamlSpKeyStore

    store = SamlSpKeyStore()
    read = store.read()
    if not read.keys:
        raise InvalidInput("the stack has no SAML signing key")
    store.write(read.keys[1:], read)
    return _shown(read.keys[0].certificate, read.keys[0].created_at, False)


def _shown(certificate: str, created_at: int, signs: bool) -> Shown:
    from cryptography import x509

    from authgate.federation.saml.sp_keys import fingerprint

    cert = x509.load_pem_x509_certificate(certificate.encode("ascii"))
    return Shown(fingerprint(certificate), int(cert.not_valid_after_utc.timestamp()), created_at, signs, certificate)
