"""users.totp: RFC 6238's own test vectors, the ±1 step window, the key URI and the QR code."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from authgate.users import totp

# RFC 6238 appendix B: the SHA-1 seed "12345678901234567890", base32; the codes are the last six
# digits of the appendix's eight-digit values (RFC 4226 5.3: truncation modulo 10^Digit).
RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"


@pytest.mark.parametrize(("time", "code"), [
    (59, "287082"), (1111111109, "081804"), (1111111111, "050471"), (1234567890, "005924"),
    (2000000000, "279037"), (20000000000, "353130"),
])
def test_rfc_6238_appendix_b(time: int, code: str) -> None:
    assert totp.matching_step(RFC_SECRET, code, time) == time // 30


def test_one_step_either_side_and_no_further() -> None:
    now = 1234567890
    step = now // 30
    assert totp.matching_step(RFC_SECRET, "005924", now + 30) == step      # a code of the step before
    assert totp.matching_step(RFC_SECRET, "005924", now - 30) == step      # of the step after
    assert totp.matching_step(RFC_SECRET, "005924", now + 60) is None      # two steps away
    assert totp.matching_step(RFC_SECRET, "005 924", now) == step          # spaces a person typed
    for bad in ("", "00592", "0059245", "abcdef", "005924\n", "٠٠٥٩٢٤"):
        assert totp.matching_step(RFC_SECRET, bad, now) is None, bad


def test_a_step_is_accepted_once_and_never_an_older_one_after_it() -> None:
    """RFC 6238 5.2: the second use of a code, or of an earlier step's, is refused; no secret accepts nothing."""
    now = 1234567890
    step = now // 30
    assert totp.accepted_step(RFC_SECRET, "005924", now, 0) == step
    assert totp.accepted_step(RFC_SECRET, "005924", now, step - 1) == step
    assert totp.accepted_step(RFC_SECRET, "005924", now, step) is None           # replayed
    assert totp.accepted_step(RFC_SECRET, "005924", now + 30, step + 1) is None  # older than the last one used
    assert totp.accepted_step(RFC_SECRET, "000000", now, 0) is None
    assert totp.accepted_step(None, "005924", now, 0) is None
    assert totp.accepted_step("", "005924", now, 0) is None


def test_an_enrolment_waits_fifteen_minutes_for_its_first_code() -> None:
    assert totp.PENDING_SECONDS == 900
    assert totp.enrolment_open(1000, 1900) and not totp.enrolment_open(1000, 1901)


def test_a_new_secret_is_160_bits_of_base32() -> None:
    a, b = totp.new_secret(), totp.new_secret()
    assert a != b and re.fullmatch(r"[A-Z2-7]{32}", a)


def test_the_key_uri_and_its_qr_code() -> None:
    uri = totp.provisioning_uri(RFC_SECRET, account="bob", issuer="authgate demo")
    parts = urlsplit(uri)
    assert (parts.scheme, parts.netloc, parts.path) == ("otpauth", "totp", "/authgate%20demo:bob")
    assert parse_qs(parts.query) == {"secret": [RFC_SECRET], "issuer": ["authgate demo"]}
    svg = totp.qr_svg(uri)
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "<title>One-time code QR code</title>" in svg
    assert "http" not in svg.replace("http://www.w3.org/2000/svg", "")  # drawn here, nothing fetched
