"""admin.arguments: what admin commands refuse before touching a stack, and the line that says why."""

from __future__ import annotations

import pytest

from authgate_cli.admin import arguments
from authgate_cli.admin.arguments import InvalidInput


@pytest.mark.parametrize("value, message", [
    ("", "--client-id must not be empty"),
    ("a b", "--client-id 'a b' must be printable ASCII without spaces or control characters"),
    ("evil\x1b[2Jid", "--client-id 'evil\\x1b[2Jid' must be printable ASCII without spaces or control characters"),
    ("new\nline", "--client-id 'new\\nline' must be printable ASCII without spaces or control characters"),
    ("caf\u00e9", "--client-id 'café' must be printable ASCII without spaces or control characters"),
    ("x" * 201, "--client-id is longer than 200 characters"),
])
def test_identifiers(value: str, message: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        arguments.identifier(value, "--client-id")
    assert str(raised.value) == message
    assert "\n" not in str(raised.value) and "\x1b" not in str(raised.value)


@pytest.mark.parametrize("value, message", [
    ("bob\x00", "--username 'bob\\x00' contains the control character U+0000"),
    ("bob\u202eevil", "--username 'bob\\u202eevil' contains the control character U+202E"),
    ("line\u2028break", "--username 'line\\u2028break' contains the control character U+2028"),
    (" bob", "--username ' bob' starts or ends with a space"),
    ("   ", "--username must not be empty"),
])
def test_text(value: str, message: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        arguments.text(value, "--username")
    assert str(raised.value) == message


def test_text_allows_any_printable_name() -> None:
    assert arguments.text("Zoë's app — v2", "--name") == "Zoë's app — v2"


@pytest.mark.parametrize("uri", ["https://app.example/cb#frag", "/relative/cb", "https://app.example/c b",
                                 "https://app.example/%ZZ", "https://app.example:99999/cb", "https://é.example/cb",
                                 "http://evil.example\\@127.0.0.1/cb", "https://app.example\\cb"])
def test_redirect_uris_must_be_what_the_authorization_endpoint_can_match(uri: str) -> None:
    with pytest.raises(InvalidInput, match="is not an absolute URI in printable ASCII without a fragment or a "
                                           "backslash"):
        arguments.redirect_uri(uri)


@pytest.mark.parametrize("uri", ["http://app.example/cb", "HTTP://app.example/cb", "http://10.0.0.5:8080/cb",
                                 "http://127.0.0.1.nip.io/cb", "http://[::2]/cb", "javascript:alert(1)",
                                 "file:///etc/passwd", "custom:/cb"])
def test_a_redirect_uri_over_plain_http_to_another_host_is_refused(uri: str) -> None:
    """RFC 9700 2.1 / RFC 8252 7.3: plain http only back to the user's own machine."""
    with pytest.raises(InvalidInput) as raised:
        arguments.redirect_uri(uri)
    assert str(raised.value) == (
        f"redirect URI {uri!r} must be https (plain http only on a loopback address such as "
        "http://127.0.0.1:PORT/..., RFC 8252 7.3) or a native app's private-use scheme such as "
        "com.example.app:/callback (RFC 8252 7.1): a code sent over plain http to another host can be read on the "
        "way (RFC 9700 2.1, 4.1)")


@pytest.mark.parametrize("uri", ["https://app.example/cb", "http://127.0.0.1:8765/callback", "http://[::1]:9/cb",
                                 "http://localhost:3000/cb", "com.example.app:/callback"])
def test_https_loopback_http_and_private_use_schemes_are_accepted(uri: str) -> None:
    assert arguments.redirect_uri(uri) == uri


@pytest.mark.parametrize("grants, kind, uris, message", [
    ([], "confidential", [], "give at least one --grant"),
    (["authorization_code"], "confidential", [], "the authorization_code grant needs at least one --redirect-uri"),
    (["client_credentials"], "confidential", ["https://a.example/cb"], "--redirect-uri is only used by"),
    (["refresh_token"], "confidential", [],
     "the refresh_token grant needs authorization_code, password, device_code or ciba"),
    (["client_credentials"], "public", [], "a public client cannot use client_credentials"),
    (["urn:ietf:params:oauth:grant-type:jwt-bearer"], "public", [], "a public client cannot present ID-JAGs"),
    (["urn:openid:params:grant-type:ciba"], "public", [], "a public client cannot use ciba"),
    (["urn:ietf:params:oauth:grant-type:token-exchange"], "confidential", [],
     "token-exchange is not a client's grant: a registered resource's own credentials exchange tokens"),
])
def test_grants(grants: list[str], kind: str, uris: list[str], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        arguments.client_grants(grants, kind, uris)


def test_a_public_client_may_have_the_device_grant_with_refresh_tokens() -> None:
    """RFC 8628 3.1: devices are usually public clients; their refresh tokens come with the device grant."""
    arguments.client_grants(["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"], "public", [])


def test_a_confidential_client_may_use_ciba_with_refresh_tokens() -> None:
    """OpenID Connect CIBA Core 7.1: confidential clients; the approval's tokens may include a refresh token."""
    arguments.client_grants(["urn:openid:params:grant-type:ciba", "refresh_token"], "confidential", [])


@pytest.mark.parametrize(("given", "stored"), [
    ("jwt-bearer", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
    ("urn:ietf:params:oauth:grant-type:jwt-bearer", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
    ("token-exchange", "urn:ietf:params:oauth:grant-type:token-exchange"),
    ("device_code", "urn:ietf:params:oauth:grant-type:device_code"),
    ("ciba", "urn:openid:params:grant-type:ciba"),
    ("client_credentials", "client_credentials"),
])
def test_grant_types_by_name_short_name_or_urn(given: str, stored: str) -> None:
    assert arguments.grant_type(given) == stored


def test_every_grant_type_of_the_stack_is_a_grant_choice() -> None:
    """The admin CLI reads the stack's one list (authgate.grant_types): a new grant type is a --grant choice."""
    from authgate.grant_types import GRANT_TYPES

    assert [arguments.grant_type(g) for g in GRANT_TYPES] == list(GRANT_TYPES)
    assert len(arguments.GRANT_NAMES) == len(GRANT_TYPES)


def test_an_unknown_grant_type_is_refused() -> None:
    with pytest.raises(InvalidInput, match="--grant 'implicit' is not a grant type"):
        arguments.grant_type("implicit")


def test_a_sound_registration_passes() -> None:
    arguments.client_grants(["authorization_code", "refresh_token"], "public", ["http://127.0.0.1:8765/cb"])
    arguments.client_grants(["client_credentials"], "confidential", [])
    arguments.client_grants(["urn:ietf:params:oauth:grant-type:jwt-bearer"], "confidential", [])
