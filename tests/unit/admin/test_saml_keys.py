"""`authgate saml-keys add | retire | list` output against moto's AWS."""

from __future__ import annotations

import io
import json

import pytest

from authgate.clock import ManualClock
from authgate_cli.admin.saml_keys import add_key, list_keys, retire_key

pytestmark = pytest.mark.slow  # RSA 3072 keys made


def test_add_list_and_retire_say_which_key_signs_by_its_fingerprint(aws: None, clock: ManualClock) -> None:
    out = io.StringIO()
    assert list_keys(out) == 0
    assert out.getvalue() == "no SAML signing key: requests go unsigned (authgate saml-keys add)\n"
    out = io.StringIO()
    assert add_key("authgate SAML SP https://auth.example.com", out) == 0
    first = out.getvalue().removeprefix("added, signing: ").strip()
    out = io.StringIO()
    assert add_key("authgate SAML SP https://auth.example.com", out, as_json=True) == 0
    second = json.loads(out.getvalue())
    assert (len(first), second["signs"], second["created_at"]) == (95, False, clock.value)
    assert second["certificate"].startswith("-----BEGIN CERTIFICATE-----") and "PRIVATE" not in out.getvalue()
    out = io.StringIO()
    list_keys(out)
    assert out.getvalue().splitlines() == [
        f"{'FINGERPRINT (SHA-256)'.ljust(95)}  SIGNS  CREATED               NOT AFTER",
        f"{first}  yes    2025-06-15T15:06:40Z  2035-06-13T15:06:40Z",
        f"{second['fingerprint_sha256']}  no     2025-06-15T15:06:40Z  2035-06-13T15:06:40Z"]
    out = io.StringIO()
    list_keys(out, pem=True)
    assert out.getvalue().count("-----BEGIN CERTIFICATE-----") == 2 and "PRIVATE" not in out.getvalue()
    out = io.StringIO()
    assert retire_key(out) == 0
    assert out.getvalue() == f"retired: {first}\n"
