"""administration.clients: a registered client's create, update, rotate-secret and delete, one implementation for
`authgate clients` and the console; administration.input's JWK Set, which never reads a file."""

from __future__ import annotations

import pytest

from authgate.administration.client_registration import Asked
from authgate.administration.input import InvalidInput


@pytest.fixture
def demo(aws: None) -> None:
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "demo", "name": "Demo", "currencies": ["usd"], "forbidden_scopes": [],
           "approved_clients": []}])


SERVICE = Asked(client_id="svc", tenant="demo", grant=["client_credentials"], scope=["charges:read"])


def test_create_registers_the_client_and_returns_its_secret_once(demo: None) -> None:
    from authgate.administration.clients import ClientTaken, create
    from authgate.clients.model import client_secret_matches
    from authgate.stores.clients import ClientStore

    client, secret = create(SERVICE._replace(grant=["client_credentials"], name="Service"))
    stored = ClientStore().get("svc")
    assert stored == client and secret is not None and client_secret_matches(stored, secret)
    assert (client.tenant_id, client.name, client.grant_types, client.scopes) == (
        "demo", "Service", ("client_credentials",), ("charges:read",))
    with pytest.raises(ClientTaken, match=r"^client 'svc' already exists$"):
        create(SERVICE)
    public, none = create(Asked(tenant="demo", type="public", grant=["authorization_code"],
                                redirect_uri=["https://spa.example/cb"]))
    assert none is None and public.client_id and public.name == ""


@pytest.mark.parametrize(("asked", "message"), [
    (SERVICE._replace(grant=["device"]), ("--grant 'device' is not a grant type: one of authorization_code, "
                                         "refresh_token, client_credentials, password, token-exchange, jwt-bearer, "
                                         "device_code, ciba, or the URN of the last 4")),
    (SERVICE._replace(scope=["charges:nothing"]), ("unknown scope 'charges:nothing'; known: charges:read "
                                                  "charges:write charges:refund openid profile email offline_access")),
    (SERVICE._replace(grant=["password"]), ("the password grant is off on this stack (its token endpoint answers "
                                           "unsupported_grant_type): deploy with PasswordGrantEnabled=true, or start "
                                           "`authgate serve` with AUTHGATE_PASSWORD_GRANT=true, before registering a "
                                           "client for it")),
    (SERVICE._replace(auth_method="private_key_jwt"),
     "private_key_jwt needs the client's public keys: give --jwks FILE|JSON"),
    (SERVICE._replace(jwks="/etc/passwd"), "--jwks is not valid JSON: Expecting value at line 1 column 1"),
    (SERVICE._replace(tenant=""), "--tenant must not be empty"),
])
def test_create_refuses_what_the_command_refuses_and_writes_nothing(demo: None, asked: Asked, message: str) -> None:
    from authgate.administration.clients import create
    from authgate.stores.clients import ClientStore

    with pytest.raises(InvalidInput) as refused:
        create(asked)
    assert str(refused.value) == message
    assert ClientStore().get("svc") is None


def test_update_changes_what_is_asked_and_says_so(demo: None) -> None:
    from authgate.administration.clients import create, update, updated_said
    from authgate.clients.errors import ClientNotFound

    create(SERVICE)
    updated = update("svc", Asked(name="Renamed", require_par=True, grant=["client_credentials"]))
    assert (updated.name, updated.require_pushed_authorization_requests) == ("Renamed", True)
    assert updated_said(updated) == ("client_id: svc updated (auth client_secret_basic, profile none, 0 keys, PAR "
                                     "required, resource grants none)")
    with pytest.raises(ClientNotFound):
        update("nobody", Asked(name="x"))
    create(Asked(client_id="spa", tenant="demo", type="public", grant=["authorization_code"],
                 redirect_uri=["https://spa.example/cb"]))
    with pytest.raises(InvalidInput, match="^a public client cannot use client_credentials"):
        update("spa", Asked(grant=["authorization_code", "client_credentials"]))


def test_rotate_and_delete_say_what_the_command_says(demo: None) -> None:
    from authgate.administration.clients import create, delete, rotate_secret, shown
    from authgate.clients.errors import ClientNotFound
    from authgate.clients.model import client_secret_matches
    from authgate.stores.clients import ClientStore

    client, old = create(SERVICE)
    new = rotate_secret("svc")
    stored = ClientStore().get("svc")
    assert new != old and client_secret_matches(stored, new) and not client_secret_matches(stored, old or "")
    view = shown(client)
    assert "secret_hash" not in view and view["jwks"] == "" and view["client_id"] == "svc"
    public, _ = create(Asked(client_id="spa", tenant="demo", type="public", grant=["authorization_code"],
                             redirect_uri=["https://spa.example/cb"]))
    with pytest.raises(InvalidInput, match=r"^client 'spa' is public: it has no secret to rotate \(RFC 6749 2.1\)$"):
        rotate_secret("spa")
    assert delete("svc")[1] == "client_id: svc deleted"
    assert ClientStore().get("svc") is None
    with pytest.raises(ClientNotFound):
        delete("svc")
    with pytest.raises(ClientNotFound):
        rotate_secret("svc")
    ClientStore().put(public._replace(client_id="dcr", source="registration"))
    assert delete("dcr")[1] == ("client_id: dcr deleted (a dynamically registered client: its registration access "
                                "token stops working)")


def test_the_consoles_own_client_is_neither_changed_rotated_nor_deleted(demo: None) -> None:
    from authgate.administration.clients import delete, rotate_secret, update
    from authgate.console.client import ensure
    from authgate.stores.clients import ClientStore

    ensure("https://auth.example")
    before = ClientStore().get("authgate-console")
    for act, doing in ((lambda: update("authgate-console", Asked(name="mine")), "changing"),
                       (lambda: rotate_secret("authgate-console"), "rotating the secret of"),
                       (lambda: delete("authgate-console"), "deleting")):
        with pytest.raises(InvalidInput) as refused:
            act()
        assert str(refused.value) == (
            "client 'authgate-console' is the operators' console's own: each deploy (and `authgate serve`) writes "
            f"it, and {doing} it would keep every operator out of the console")
    assert ClientStore().get("authgate-console") == before
