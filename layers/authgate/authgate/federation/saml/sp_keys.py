"""The key authgate's SAML service provider signs its requests with: one per stack, RSA with SHA-256.

An operator makes it (`authgate saml-keys add`: administration.saml_sp_keys); from then on every
AuthnRequest and LogoutRequest the stack sends by HTTP-Redirect is signed with it
(redirect_signature.signed_query), and the SP metadata of every tenant publishes its certificate in
a <KeyDescriptor use="signing"> with AuthnRequestsSigned="true" (Metadata 2.4.4: that attribute
promises every request is signed, so signing is the stack's, not one IdP's). The key is RSA of
3072 bits (what AD FS, Shibboleth, Entra ID, Okta and SimpleSAMLphp all verify; SHA-256, never
SHA-1) under a self-signed certificate valid for ten years: an IdP trusts the certificate because
its administrator imported it, not for its issuer or dates.

Kept in KeysTable's `#saml-sp` item (stores.saml_sp_keys): the certificate in clear, the private key
as PKCS#8 PEM sealed (authgate.sealing) under a key derived from the stack's sealing key with this
kind's own label, bound to its certificate, so the table alone signs nothing and a sealed key put
beside another certificate does not open. Rotation (docs/federation.md): `add` publishes a second
key beside the first, the IdPs take the new metadata, `retire` drops the first and the second
signs. A warm function re-reads the item every SIGNING_TTL seconds, so a retirement reaches every
container within that time. Never logged: only the certificate's fingerprint is ever shown.
"""

from __future__ import annotations

import datetime
import hashlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate.caches import BoundedCache, cached

if TYPE_CHECKING:
    from authgate.stores.saml_sp_keys import StoredKey

KEY_BITS = 3072
VALID_DAYS = 3650
SIGNING_TTL = 300.0
_LABEL = b"authgate saml sp signing key v1"


class SpKey(NamedTuple):
    """A usable key: its certificate (PEM) and the private key (a cryptography RSAPrivateKey)."""

    certificate: str
    private_key: Any


class Published(NamedTuple):
    """What the stack's item holds, read: the certificates (PEM, the signing one first) and the key that signs."""

    certificates: tuple[str, ...]
    signer: SpKey | None


def fingerprint(certificate: str) -> str:
    """The certificate's SHA-256 fingerprint (of its DER), colon-separated hex: how an administrator compares it."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    der = x509.load_pem_x509_certificate(certificate.encode("ascii")).public_bytes(Encoding.DER)
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def generate(common_name: str, now: int) -> tuple[str, str]:
    """(a new private key as PKCS#8 PEM, its self-signed certificate as PEM) for `common_name`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name[:64])])
    start = datetime.datetime.fromtimestamp(now, datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start - datetime.timedelta(days=1))
            .not_valid_after(start + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode("ascii")
    return private_pem, cert.public_bytes(serialization.Encoding.PEM).decode("ascii")


def _sealing_key() -> bytes:
    from authgate import sealing
    from authgate.stores.sealing_key import sealing_key

    return sealing.derive(sealing_key(), _LABEL)


def seal(private_pem: str, certificate: str) -> str:
    """The private key sealed for the stack, bound to `certificate`."""
    from authgate import sealing

    return sealing.seal(_sealing_key(), private_pem, ("saml-sp", certificate))


def opened(stored: StoredKey) -> SpKey:
    """The stored key, unsealed and loaded; sealing.SecretUnreadable when it does not open (the sealing key changed)."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    from authgate import sealing

    pem = sealing.unseal(_sealing_key(), stored.sealed_key, ("saml-sp", stored.certificate))
    key = load_pem_private_key(pem.encode("ascii"), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise sealing.SecretUnreadable("the SAML signing key is not an RSA key")
    return SpKey(stored.certificate, key)


@cached
def _cache() -> BoundedCache[str, Published]:
    return BoundedCache(2, ttl=SIGNING_TTL)


def certificates(clock: Callable[[], float] = time.monotonic) -> tuple[str, ...]:
    """The certificates the SP metadata publishes (none when the stack has no key: signing is off)."""
    return _read("certificates", clock, unseal=False).certificates


def signer(clock: Callable[[], float] = time.monotonic) -> SpKey | None:
    """The key requests are signed with, or None when the stack has none (requests go unsigned)."""
    return _read("signer", clock, unseal=True).signer


def _read(purpose: str, clock: Callable[[], float], *, unseal: bool) -> Published:
    """The item as `purpose` needs it, at most SIGNING_TTL seconds old (one GetItem otherwise). The metadata
    route never unseals: the jwks function holds no sealing key."""
    now = clock()
    cache = _cache()
    found = cache.get(purpose, now)
    if found is None:
        from authgate.stores.saml_sp_keys import SamlSpKeyStore

        keys = SamlSpKeyStore().read().keys
        found = Published(tuple(k.certificate for k in keys), opened(keys[0]) if unseal and keys else None)
        cache.put(purpose, found, now)
    return found
