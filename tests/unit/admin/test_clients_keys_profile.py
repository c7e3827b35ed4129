"""`authgate clients create|update` with --jwks, --auth-method, --require-par and --profile fapi2, against moto."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.functional.assertion_support import new_private_jwk, public_of
from tests.unit.admin.clients_arguments import ns


@pytest.fixture
def demo(aws: None) -> None:
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "demo", "name": "Demo", "currencies": ["usd"], "forbidden_scopes": [],
           "approved_clients": []}])


def fapi(**kwargs: Any) -> argparse.Namespace:
    base: dict[str, Any] = {"client_id": "bank-app", "grant": ["authorization_code", "refresh_token"],
                            "redirect_uri": ["https://app.example/cb"], "profile": "fapi2",
                            "jwks": json.dumps({"keys": [public_of(new_private_jwk())]}),
                            "auth_method": None, "require_par": None}
    base.update(kwargs)
    return ns(**base)


def refused(capsys: pytest.CaptureFixture[str], args: argparse.Namespace) -> str:
    from authgate_cli.admin.client_actions import create_client

    assert create_client(args, io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("authgate clients: ")
    return err.strip().removeprefix("authgate clients: ")


def test_a_fapi2_client_gets_keys_no_secret_and_par(demo: None) -> None:
    from authgate.oauth.clients.profile import (
        allowed_auth_methods,
        requires_dpop,
        requires_pushed_request,
    )
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client

    out = io.StringIO()
    assert create_client(fapi(), out) == 0
    shown = json.loads(out.getvalue())
    assert shown["client_secret"] is None and shown["profile"] == "fapi2"
    assert shown["token_endpoint_auth_method"] == "private_key_jwt"
    client = ClientStore().get("bank-app")
    assert client is not None and client.secret_hash is None and len(client.jwks) == 1
    assert "d" not in client.jwks[0]
    assert allowed_auth_methods(client) == ("private_key_jwt",)
    assert requires_pushed_request(client) and requires_dpop(client)


def test_the_keys_may_come_from_a_file(demo: None, tmp_path: Path) -> None:
    from authgate_cli.admin.client_actions import create_client

    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [public_of(new_private_jwk("RSA"))]}))
    assert create_client(fapi(jwks=str(path)), io.StringIO()) == 0


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"jwks": None}, ("--profile fapi2 needs the client's public keys: give --jwks FILE|JSON (private_key_jwt, "
                     "FAPI 2.0 5.3.2.1)")),
    ({"type": "public"}, "--profile fapi2 needs a confidential client (FAPI 2.0 5.3.2.1)"),
    # localhost passes the general rule (RFC 8252 7.3) but not FAPI's IP literals (RFC 8252 8.3).
    ({"redirect_uri": ["http://localhost:9/cb"]}, ("--profile fapi2: redirect URI 'http://localhost:9/cb' must be "
                                                  "https (http only on a loopback address, for local development)")),
    ({"auth_method": "client_secret_basic"}, ("--profile fapi2 authenticates with private_key_jwt only, not "
                                             "client_secret_basic")),
    ({"jwks": json.dumps({"keys": [new_private_jwk()]})}, ("--jwks: key 0 holds the private member 'd': register "
                                                          "public keys only and keep the private key with the client")),
    ({"jwks": "{not json"}, ("--jwks is not valid JSON: Expecting property name enclosed in double quotes at line 1 "
                            "column 2")),
    ({"jwks": "/nonexistent/jwks.json"}, ("--jwks '/nonexistent/jwks.json' is neither a JSON JWK Set nor a readable "
                                         "file (No such file or directory)")),
    ({"jwks": json.dumps({"keys": [{"kty": "oct", "k": "AAAA"}]})}, ("--jwks: key 0 holds the private member 'k': "
                                                                     "register public keys only and keep the private "
                                                                     "key with the client")),
    ({"jwks": json.dumps({"keys": [{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}]})},
     "--jwks: key 0 is not a valid public key: JWK member x is 1 octets; P-256 needs exactly 32"),
])
def test_bad_registrations_are_one_line_and_exit_2(demo: None, capsys: pytest.CaptureFixture[str],
                                                   kwargs: dict[str, Any], reason: str) -> None:
    assert refused(capsys, fapi(**kwargs)) == reason


def test_small_rsa_keys_are_refused(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    from authgate.tokens.jwk import public_jwk

    small = public_jwk(rsa.generate_private_key(65537, 1024).public_key(), "small", "PS256")
    assert refused(capsys, fapi(jwks=json.dumps({"keys": [small]}))) == (
        "--jwks: key 0: RSA keys must have at least 2048 bits (FAPI 2.0 5.4)")


def test_update_puts_an_existing_client_on_the_profile(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, update_client

    plain = ns(client_id="web", grant=["authorization_code"], redirect_uri=["https://w.example/cb"], jwks=None,
               auth_method=None, profile=None, require_par=None)
    assert create_client(plain, io.StringIO()) == 0
    assert ClientStore().get("web").secret_hash is not None  # type: ignore[union-attr]
    bare = argparse.Namespace(client_id="web", jwks=None, auth_method=None, profile="fapi2", require_par=None,
                              json=True)
    assert update_client(bare, io.StringIO()) == 2
    assert "needs the client's public keys" in capsys.readouterr().err
    keyed = argparse.Namespace(**{**vars(bare), "jwks": json.dumps({"keys": [public_of(new_private_jwk())]})})
    assert update_client(keyed, io.StringIO()) == 0
    client = ClientStore().get("web")
    assert client is not None and client.profile == "fapi2" and client.secret_hash is None
    assert client.require_pushed_authorization_requests and client.token_endpoint_auth_method == "private_key_jwt"
    off = argparse.Namespace(**{**vars(bare), "profile": "none", "require_par": False})
    assert update_client(off, io.StringIO()) == 0
    client = ClientStore().get("web")
    assert client is not None and client.profile == "" and not client.require_pushed_authorization_requests
    assert update_client(argparse.Namespace(**{**vars(bare), "client_id": "nobody"}), io.StringIO()) == 2
