"""A message's signature in the HTTP-Redirect binding (SAML Bindings 3.4.4.1): over the query string, not the XML.

The signer signs the octets `SAMLResponse=<v>&RelayState=<v>&SigAlg=<v>` (SAMLRequest for a
request; RelayState only when sent), each value URL-encoded, and sends the signature, base64,
as `Signature`. 3.4.4.1 asks the receiver to check it over the values exactly as they came on
the query string; API Gateway hands authgate the decoded values only, so they are encoded again
as the common implementations encode them (SimpleSAMLphp's urlencode, Shibboleth's, .NET's with
upper-case hex; AD FS's with lower-case hex): both are tried. The values authgate sets itself
(RelayState: url-safe characters) encode one way only. The key is one of the IdP record's
certificates, never one the message names; RSA with SHA-256 or stronger only (SHA-1 refused).
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

ALGORITHMS: dict[str, type[hashes.HashAlgorithm]] = {
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": hashes.SHA256,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": hashes.SHA384,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": hashes.SHA512,
}
# A 4096-bit RSA signature is 684 base64 characters.
MAX_SIGNATURE = 1400
_HEX = re.compile(r"%[0-9A-F]{2}")


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
    upper = "&".join(f"{name}={quote_plus(params.get(name, ''), safe='')}" for name in names)
    lower = _HEX.sub(lambda m: m.group(0).lower(), upper)
    for pem in certificates:
        key = x509.load_pem_x509_certificate(pem.encode("ascii")).public_key()
        if not isinstance(key, rsa.RSAPublicKey):
            continue
        for octets in dict.fromkeys((upper, lower)):
            try:
                key.verify(signature, octets.encode("ascii"), padding.PKCS1v15(), algorithm())
            except InvalidSignature:
                continue
            return
    raise UpstreamRefused("signature_invalid", "the query's signature does not verify with the IdP's certificates")
