"""sp_keys: the stack's SAML signing key -- made, sealed at rest, read (and re-read) by a warm function."""

from __future__ import annotations

import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from authgate.federation.saml import sp_keys
from authgate.sealing import SecretUnreadable
from authgate.stores.saml_sp_keys import SamlSpKeyStore, StoredKey
from tests.conftest import START
from tests.saml_support import signing_key, store_sp_keys


@pytest.mark.slow
def test_a_new_key_is_rsa_3072_under_a_ten_year_self_signed_certificate_for_signing() -> None:
    private_pem, certificate = sp_keys.generate("authgate SAML SP https://auth.example.com", START)
    cert = x509.load_pem_x509_certificate(certificate.encode())
    key = load_pem_private_key(private_pem.encode(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey) and key.key_size == 3072
    assert cert.public_key() == key.public_key() and cert.issuer == cert.subject
    assert cert.subject.rfc4514_string() == "CN=authgate SAML SP https://auth.example.com"
    assert (cert.not_valid_after_utc - cert.not_valid_before_utc) == datetime.timedelta(days=3651)
    assert cert.signature_hash_algorithm.name == "sha256"  # type: ignore[union-attr]
    usage = cert.extensions.get_extension_for_class(x509.KeyUsage)
    assert (usage.critical, usage.value.digital_signature, usage.value.key_cert_sign) == (True, True, False)


@pytest.mark.usefixtures("aws")
def test_the_private_key_is_sealed_and_opens_only_beside_its_own_certificate() -> None:
    sp, other = signing_key("sp"), signing_key("sp-next")
    store_sp_keys(sp)
    stored = SamlSpKeyStore().read().keys[0]
    assert stored.certificate == sp.cert_pem and stored.sealed_key.startswith("v1.")
    assert "PRIVATE KEY" not in stored.sealed_key
    assert sp_keys.opened(stored).private_key.private_numbers() == sp.key.private_numbers()
    with pytest.raises(SecretUnreadable):
        sp_keys.opened(StoredKey(other.cert_pem, stored.sealed_key, stored.created_at))


@pytest.mark.usefixtures("aws")
def test_a_warm_function_reads_the_keys_again_after_the_ttl() -> None:
    """A retirement (or a first key) reaches every container within SIGNING_TTL seconds."""
    now = [1000.0]

    def clock() -> float:
        return now[0]

    sp, after = signing_key("sp"), signing_key("sp-next")
    assert (sp_keys.signer(clock), sp_keys.certificates(clock)) == (None, ())
    store_sp_keys(sp, after)  # (forgets the caches, as a new container would)
    assert sp_keys.signer(clock).certificate == sp.cert_pem  # type: ignore[union-attr]
    assert sp_keys.certificates(clock) == (sp.cert_pem, after.cert_pem)
    store = SamlSpKeyStore()
    store.write(store.read().keys[1:], store.read())  # retired elsewhere: this container still holds the item
    now[0] += sp_keys.SIGNING_TTL - 1
    assert sp_keys.signer(clock).certificate == sp.cert_pem  # type: ignore[union-attr]
    now[0] += 1
    assert sp_keys.signer(clock).certificate == after.cert_pem  # type: ignore[union-attr]
    assert sp_keys.certificates(clock) == (after.cert_pem,)


def test_a_certificates_fingerprint_is_the_sha256_of_its_der() -> None:
    import hashlib

    from cryptography.hazmat.primitives.serialization import Encoding

    der = x509.load_pem_x509_certificate(signing_key("sp").cert_pem.encode()).public_bytes(Encoding.DER)
    assert sp_keys.fingerprint(signing_key("sp").cert_pem) == ":".join(
        f"{b:02X}" for b in hashlib.sha256(der).digest())
