"""authgate.administration.identity_provider_input: each field of an IdP as an operator gives it, refused in one
line."""

from __future__ import annotations

import pytest

from authgate.administration import identity_provider_input as values
from authgate.operators.input import InvalidInput


@pytest.mark.parametrize(("check", "value", "message"), [
    (values.issuer, "http://idp.example", "--issuer 'http://idp.example' must be an https URL"),
    (values.issuer, "https://idp.example/#x", "is not an absolute URI in printable ASCII"),
    (values.record_issuer, "not a uri", "--issuer 'not a uri' is not an absolute URI"),
    (values.client_id, "a b", "--client-id 'a b' must be printable ASCII without spaces"),
    (values.idp_id, "-x", "--id '-x' must be 1 to 32 lower-case letters"),
    (values.label, " Acme", "--label ' Acme' starts or ends with a space"),
    (values.label, "x" * 65, "--label is longer than 64 characters"),
    (values.scopes, "openid  email", "must be scope tokens separated by single spaces"),
    (values.domains, ["acme..example"], "--domain 'acme..example' is not a domain name"),
    (values.claims, ["email"], "--claim 'email' must be FIELD=NAME"),
    (values.mfa_values, ["two words"], "--trust-mfa 'two words' must be an acr or amr value without spaces"),
])
def test_what_each_field_refuses(check: object, value: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        check(value)  # type: ignore[operator]


def test_what_each_field_keeps() -> None:
    assert values.issuer("https://login.acme.example/v2.0") == "https://login.acme.example/v2.0"
    assert values.record_issuer("urn:acme:idp") == "urn:acme:idp"
    assert values.domains(["Acme.Example.", "acme.example", "acme.test"]) == ("acme.example", "acme.test")
    assert values.claims(["groups=roles", "email=upn", "groups=teams"]) == (("email", "upn"), ("groups", "teams"))
    assert values.mfa_values(["mfa", "hwk", "mfa"]) == ("mfa", "hwk")
    assert values.derived_id("Acme SSO (EU)", "https://x.example") == "acme-sso-eu"
    assert values.derived_id("", "https://login.acme.example/") == "login-acme-example"


def test_a_secret_is_one_line_and_never_in_the_message() -> None:
    assert values.client_secret("s3cret\n", "the client secret") == "s3cret"
    for bad in ("", "one\ntwo", "tab\there", "x" * 1025):
        with pytest.raises(InvalidInput) as refused:
            values.client_secret(bad, "the client secret")
        assert str(refused.value).startswith("the client secret ") and (not bad or bad not in str(refused.value))
    with pytest.raises(InvalidInput, match="^the key is not the EC P-256 private key"):
        values.apple_private_key("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n", "the key")


def test_an_id_jag_issuer_s_keys_come_from_a_url_or_a_jwk_set_not_both() -> None:
    from tests.idp_support import TestIdp

    document = TestIdp("https://idp.example").jwks_json().decode()
    assert values.keys(None, None, "the JWK Set") is None
    assert values.keys("https://idp.example/keys", None, "x") == {"jwks_uri": "https://idp.example/keys", "jwks": ()}
    found = values.keys(None, document, "the JWK Set")
    assert found is not None and found["jwks_uri"] == "" and [k["kid"] for k in found["jwks"]] == ["idp-key-1"]
    with pytest.raises(InvalidInput, match="^give --jwks-uri or --jwks-file, not both$"):
        values.keys("https://idp.example/keys", document, "the JWK Set")


@pytest.mark.parametrize(("document", "message"), [
    ("{keys", "the JWK Set is not JSON: Expecting property name enclosed in double quotes at line 1"),
    ('{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}', "the JWK Set: "),
    (" " * (256 * 1024 + 1), "the JWK Set is larger than 262144 bytes"),
])
def test_a_jwk_set_is_json_of_public_signing_keys_bounded_as_a_file_is(document: str, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        values.jwks(document, "the JWK Set")
    assert str(refused.value).startswith(message), str(refused.value)
