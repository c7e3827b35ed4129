"""administration.client_registration: what a registration asks, its syntax checked before any stack is looked up
(RFC 7591 2), with the messages `authgate clients` and the console both show."""

from __future__ import annotations

import pytest

from authgate.administration.client_registration import (
    Asked,
    changes,
    check_create,
    check_update,
    registration,
    resource_grants,
)
from authgate.administration.input import InvalidInput

CODE_FLOW = Asked(client_id="web", tenant="demo", grant=["authorization_code"], redirect_uri=["https://app.example/cb"])


def test_check_create_gives_the_grants_by_their_stored_name() -> None:
    checked = check_create(Asked(tenant="demo", grant=["device_code", "urn:ietf:params:oauth:grant-type:jwt-bearer"]))
    assert checked.grant == ["urn:ietf:params:oauth:grant-type:device_code", "urn:ietf:params:oauth:grant-type:jwt-bearer"]
    assert check_create(CODE_FLOW) == CODE_FLOW


@pytest.mark.parametrize(("asked", "message"), [
    (CODE_FLOW._replace(client_id="a b"), "--client-id 'a b' must be printable ASCII without spaces or control characters"),
    (CODE_FLOW._replace(redirect_uri=["http://app.example/cb"]),
     ("redirect URI 'http://app.example/cb' must be https (plain http only on a loopback address such as "
     "http://127.0.0.1:PORT/..., RFC 8252 7.3) or a native app's private-use scheme such as com.example.app:/callback "
     "(RFC 8252 7.1): a code sent over plain http to another host can be read on the way (RFC 9700 2.1, 4.1)")),
    (CODE_FLOW._replace(scope=["two words"]), "--scope 'two words' is not one scope token (RFC 6749 3.3)"),
    (CODE_FLOW._replace(type="public", grant=["client_credentials"], redirect_uri=[]),
     "a public client cannot use client_credentials: it has no secret (RFC 6749 4.4)"),
    (CODE_FLOW._replace(type="public", auth_method="client_secret_basic"),
     "a public client authenticates with none, and only a public client does"),
    (CODE_FLOW._replace(auth_method="none"), "a public client authenticates with none, and only a public client does"),
    (CODE_FLOW._replace(backchannel_logout_uri="http://rp.example/logout"),
     "--backchannel-logout-uri must be an https URL"),
    (CODE_FLOW._replace(id_token_signed_response_alg="none"),
     ("--id-token-signed-response-alg none is refused: ID tokens of the authorization code flow are signed "
     "(OpenID Connect Core 3.1.3.7)")),
    (CODE_FLOW._replace(id_token_signed_response_alg="HS256"), "--id-token-signed-response-alg must be one of RS256, ES256"),
    (CODE_FLOW._replace(resource_scopes=["https://mcp.example/mcp"]),
     ("--resource-scopes 'https://mcp.example/mcp' must be RESOURCE=SCOPES, a registered resource's URI and its scopes: "
     '"https://mcp.example.com/mcp=mcp:read mcp:write"')),
])
def test_check_create_refuses_bad_syntax_with_the_commands_message(asked: Asked, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_create(asked)
    assert str(refused.value) == message


def test_the_profile_and_logout_attributes_are_what_was_asked() -> None:
    asked = CODE_FLOW._replace(post_logout_redirect_uri=["https://app.example/bye", "https://app.example/bye"],
                               backchannel_logout_uri="https://app.example/bc", require_par=False,
                               backchannel_logout_session_required=True, id_token_signed_response_alg="ES256")
    assert registration(asked, "confidential", asked.redirect_uri, asked.grant) == {
        "jwks": (), "token_endpoint_auth_method": "", "post_logout_redirect_uris": ("https://app.example/bye",),
        "backchannel_logout_uri": "https://app.example/bc", "backchannel_logout_session_required": True,
        "id_token_signed_response_alg": "ES256", "require_pushed_authorization_requests": False}
    # An update that keeps everything says nothing but what the client has; "none" clears a profile.
    assert registration(Asked(profile="none"), "confidential", (), (), current_method="client_secret_post") == {
        "jwks": (), "token_endpoint_auth_method": "client_secret_post", "profile": ""}


def test_a_loopback_logout_uri_is_taken_only_where_the_stack_takes_loopback() -> None:
    asked = Asked(backchannel_logout_uri="http://127.0.0.1:8080/bc")
    assert registration(asked, "confidential", (), ())["backchannel_logout_uri"] == "http://127.0.0.1:8080/bc"
    with pytest.raises(InvalidInput, match="^--backchannel-logout-uri must not point at loopback on this stack$"):
        registration(asked, "confidential", (), (), allow_loopback=False)


def test_an_update_changes_something_and_its_grants_are_checked() -> None:
    assert not changes(Asked()) and not changes(Asked(tenant="demo", scope=["openid"]))
    assert changes(Asked(backchannel_logout_uri="")) and changes(Asked(require_par=False))
    assert check_update(Asked(grant=["ciba"])).grant == ["urn:openid:params:grant-type:ciba"]
    with pytest.raises(InvalidInput, match=r"^--name '\\x00' contains the control character U\+0000$"):
        check_update(Asked(name="\x00"))
    assert resource_grants(Asked(resource_scopes=["https://mcp.example/mcp=mcp:read mcp:write"])) == [
        ("https://mcp.example/mcp", ("mcp:read", "mcp:write"))]
