"""An enveloped XML Signature verified with the IdP's configured certificates only (SAML Core 5.4; XML Signature).

SAML signs an element (a Response, an Assertion) with a <ds:Signature> that is its direct child
and has one <ds:Reference> whose URI is "#" + the element's ID (Core 5.4.2). `verified` checks
exactly that shape, verifies the signature with signxml against each certificate of the IdP's
record in turn -- never a key or certificate the message carries -- and returns the element as
the signature covers it: its canonical form (exclusive c14n: comments gone) parsed again. That
tree is the only one a caller may read values from; reading the received tree instead is what
signature-wrapping attacks exploit. Algorithms: RSA and ECDSA with SHA-256 or stronger, and
RSA-PSS; SHA-1, HMAC and DSA are refused. A certificate's validity dates are not checked: the
administrator configured the key (metadata.py says why).
"""

from __future__ import annotations

from cryptography import x509
from lxml import etree
from signxml.algorithms import DigestAlgorithm, SignatureMethod
from signxml.exceptions import SignXMLException
from signxml.verifier import SignatureConfiguration, XMLVerifier

from authgate.federation.saml.vocabulary import ds

SIGNATURE_METHODS = frozenset({
    SignatureMethod.RSA_SHA256, SignatureMethod.RSA_SHA384, SignatureMethod.RSA_SHA512,
    SignatureMethod.ECDSA_SHA256, SignatureMethod.ECDSA_SHA384, SignatureMethod.ECDSA_SHA512,
    SignatureMethod.SHA256_RSA_MGF1, SignatureMethod.SHA384_RSA_MGF1, SignatureMethod.SHA512_RSA_MGF1,
})
DIGEST_ALGORITHMS = frozenset({DigestAlgorithm.SHA256, DigestAlgorithm.SHA384, DigestAlgorithm.SHA512})


class SignatureInvalid(Exception):
    """The element is unsigned, signed in a shape SAML does not use, or not signed by the IdP; `reason` says which."""

    def __init__(self, reason: str, internal: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.internal = internal


def is_signed(element: etree._Element) -> bool:
    """Whether `element` carries a signature of its own (a <ds:Signature> child)."""
    return element.find(ds("Signature")) is not None


def verified(element: etree._Element, certificates: tuple[str, ...], parser: etree.XMLParser) -> etree._Element:
    """`element` as its own signature covers it, verified with one of `certificates` (PEM); SignatureInvalid otherwise."""
    signatures = element.findall(ds("Signature"))
    if not signatures:
        raise SignatureInvalid("unsigned", f"the {etree.QName(element).localname} carries no signature")
    if len(signatures) > 1:
        raise SignatureInvalid("signature_shape", "more than one signature")
    references = signatures[0].findall(f"{ds('SignedInfo')}/{ds('Reference')}")
    element_id = element.get("ID") or ""
    if not element_id or len(references) != 1 or references[0].get("URI") != f"#{element_id}":
        raise SignatureInvalid("signature_shape", "the signature does not reference exactly its own element's ID")
    failures: list[str] = []
    for pem in certificates:
        cert = x509.load_pem_x509_certificate(pem.encode("ascii"))
        config = SignatureConfiguration(location="./", expect_references=1, signature_methods=SIGNATURE_METHODS,
                                        digest_algorithms=DIGEST_ALGORITHMS,
                                        verification_time=cert.not_valid_before_utc)
        try:
            result = XMLVerifier().verify(element, x509_cert=cert, id_attribute="ID", parser=parser,
                                          expect_config=config)
        # signxml meets hostile input with its own exceptions, and with TypeError, KeyError or IndexError
        # where an element it needs is empty or missing (an empty SignatureValue): each means "not verified".
        except (SignXMLException, etree.LxmlError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            failures.append(f"{type(exc).__name__}: {str(exc)[:160]}")
            continue
        signed = result.signed_xml  # type: ignore[union-attr]
        if signed is None or signed.tag != element.tag or signed.get("ID") != element_id:
            raise SignatureInvalid("signature_shape", "the signed data is not the element itself")
        return signed
    raise SignatureInvalid("signature_invalid", "; ".join(failures)[:500])
