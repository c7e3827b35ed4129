"""oauth.clients.registration.management: RFC 7592 read, update (the token rotates) and delete, by its token only."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.errors import ApiError
from authgate.oauth.clients.registration.endpoint import post_register
from authgate.oauth.clients.registration.management import (
    delete_registration,
    get_registration,
    put_registration,
)
from authgate.stores.clients import ClientStore
from tests.unit.oauth.clients.registration.conftest import REDIRECT, json_request

DOC = {"client_name": "CLI Agent", "redirect_uris": [REDIRECT]}


def registered() -> tuple[str, str]:
    body = json.loads(post_register(json_request("POST", DOC)).body)
    return body["client_id"], body["registration_access_token"]


def refused(handler: Any, *args: Any, **kwargs: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        handler(json_request(*args, **kwargs))
    return caught.value


@pytest.mark.usefixtures("enabled")
def test_read_update_delete_with_the_token() -> None:
    client_id, token = registered()
    read = get_registration(json_request("GET", client_id=client_id, token=token))
    assert read.status == 200 and "registration_access_token" not in json.loads(read.body)
    updated = put_registration(json_request("PUT", {**DOC, "client_id": client_id, "client_name": "Renamed"},
                                            client_id=client_id, token=token))
    body = json.loads(updated.body)
    assert (updated.status, body["client_name"]) == (200, "Renamed")
    assert body["registration_access_token"] != token  # rotated (RFC 7592 3)
    stale = refused(get_registration, "GET", client_id=client_id, token=token)
    assert (stale.code, stale.status) == ("invalid_registration_token", 401)
    gone = delete_registration(json_request("DELETE", client_id=client_id, token=body["registration_access_token"]))
    assert (gone.status, gone.body, gone.headers) == (204, "", {"Cache-Control": "no-store", "Pragma": "no-cache"})
    assert ClientStore().get(client_id) is None


@pytest.mark.usefixtures("enabled")
def test_a_token_works_only_on_its_own_client() -> None:
    first, token = registered()
    second, _ = registered()
    other = refused(get_registration, "GET", client_id=second, token=token)
    assert (other.code, other.headers) == (
        "invalid_registration_token", {"WWW-Authenticate": 'Bearer realm="oauth", error="invalid_token"'})
    missing = refused(get_registration, "GET", client_id=first)
    assert missing.headers == {"WWW-Authenticate": 'Bearer realm="oauth"'}
    admin = refused(get_registration, "GET", client_id="demo-web", token=token)  # never an administrator's client
    assert admin.code == "invalid_registration_token"


@pytest.mark.usefixtures("enabled")
def test_an_update_must_name_its_client() -> None:
    client_id, token = registered()
    wrong = refused(put_registration, "PUT", {**DOC, "client_id": "dcr_other"}, client_id=client_id, token=token)
    assert (wrong.code, wrong.detail) == ("invalid_client_metadata",
                                          "client_id in the body must be this client's (RFC 7592 2.2).")
