"""A message's signature in the HTTP-Redirect binding (SAML Bindings 3.4.4.1): over the query string, not the XML.

The signer signs the octets `SAMLResponse=<v>&RelayState=<v>&SigAlg=<v>` (SAMLRequest for a
request; RelayState only when sent), each value URL-encoded, and sends the signature, base64,
as `Signature`. 3.4.4.1 asks the receiver to check it over the values exactly as they came on
the query string; API Gateway hands authgate the decoded values only, so they are encoded again
as the common implementations encode them (SimpleSAMLphp's urlencode, Shibboleth's, .NET's with
upper-case hex; AD FS's with lower-case hex): both are tried. The values authgate sets itself
(RelayState: url-safe characters) encode one way only. The key is one of the IdP record's
certificates, never one the message names; RSA with SHA-256 or stronger only (SHA-1 refused).

authgate signs its own requests the same way (`signed_query`: SigAlg RSA-SHA256, the stack's key,
federation.saml.sp_keys). The signature is over a plain octet string, not XML, so `cryptography`
signs and verifies it directly: no XML Signature library is involved.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from urllib.parse import quote_plus

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from authgate.federation.errors import UpstreamRefused

RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
ALGORITHMS: dict[str, type[hashes.HashAlgorithm]] = {
    RSA_SHA256: hashes.SHA256,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": hashes.SHA384,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": hashes.SHA512,
}
# A 4096-bit RSA signature is 684 base64 characters.
MAX_SIGNATURE = 1400
_HEX = re.compile(r"%[0-9A-F]{2}")


def octets(pairs: list[tuple[str, str]]) -> str:
    """The signed octet string of Bindings 3.4.4.1: `name=value` joined by "&", each value URL-encoded (upper-case
    hex; a space as "+", as PHP's urlencode and Java's URLEncoder write it), in the order given."""
    return "&".join(f"{name}={quote_plus(value, safe='')}" for name, value in pairs)


def signed_query(message: str, value: str, relay_state: str, private_key: rsa.RSAPrivateKey) -> str:
    """The query string of a message signed by the binding (3.4.4.1): `message` (SAMLRequest or SAMLResponse) with
    its DEFLATEd base64 `value`, RelayState when there is one, SigAlg (RSA-SHA256), then Signature, the base64 of
    the RSASSA-PKCS1-v1_5 SHA-256 signature over the octets before it."""
    signed = octets([(message, value), *([("RelayState", relay_state)] if relay_state else []),
                     ("SigAlg", RSA_SHA256)])
    signature = private_key.sign(signed.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
    return f"{signed}&{octets([('Signature', base64.b64encode(signature).decode('ascii'))])}"


def is_signed(params: Mapping[str, str]) -> bool:
    """Whether the query carries a signature of its own (Signature or SigAlg)."""
    return "Signature" in params or "SigAlg" in params


def verify(params: Mapping[str, str], message: str, certificates: tuple[str, ...]) -> None:
    """The query's signature over `message` (SAMLRequest or SAMLResponse) verifies with one of `certificates` (PEM);
    UpstreamRefused otherwise."""
    algorithm = ALGORITHMS.get(params.get("SigAlg", ""))
    if algorithm is None:
        raise UpstreamRefused("signature_algorithm", f"SigAlg {params.get('SigAlg', '')[:80]!r}")
    try:
        signature = base64.b64decode("".join(params.get("Signature", "").split())[:MAX_SIGNATURE], validate=True)
    except (binascii.Error, ValueError):
        raise UpstreamRefused("signature_invalid", "Signature is not base64") from None
    names = [message, *(["RelayState"] if "RelayState" in params else []), "SigAlg"]
    upper = octets([(name, params.get(name, "")) for name in names])
    lower = _HEX.sub(lambda m: m.group(0).lower(), upper)
    for pem in certificates:
        key = x509.load_pem_x509_certificate(pem.encode("ascii")).public_key()
        if not isinstance(key, rsa.RSAPublicKey):
            continue
        for candidate in dict.fromkeys((upper, lower)):
            try:
                key.verify(signature, candidate.encode("ascii"), padding.PKCS1v15(), algorithm())
            except InvalidSignature:
                continue
            return
    raise UpstreamRefused("signature_invalid", "the query's signature does not verify with the IdP's certificates")
