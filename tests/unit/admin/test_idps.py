"""authgate_cli.admin.idps: what `authgate idps` accepts, before any stack is looked up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authgate_cli.admin import idps
from authgate_cli.admin.arguments import InvalidInput
from tests.idp_support import TestIdp


def test_issuers() -> None:
    assert idps.issuer("https://acme.okta.example") == "https://acme.okta.example"
    for bad, message in [("http://idp.example", "must be an https URL"), ("https://idp.example/?x=1", "without query"),
                         ("https://u@idp.example", "user information"), ("idp", "is not an absolute URI")]:
        with pytest.raises(InvalidInput, match=message):
            idps.issuer(bad)


def test_jwks_uris_are_what_the_fetcher_fetches() -> None:
    assert idps.jwks_uri("https://idp.example/keys") == "https://idp.example/keys"
    for bad, message in [("http://idp.example/keys", "it must start with https://"),
                         ("https://idp.example", "it must have a path")]:
        with pytest.raises(InvalidInput, match=message):
            idps.jwks_uri(bad)


def test_jwks_files(tmp_path: Path) -> None:
    public = tmp_path / "jwks.json"
    public.write_text(json.dumps(TestIdp("https://idp.example").jwks()))
    assert idps.jwks_file(str(public))[0]["kid"] == "idp-key-1"
    private = tmp_path / "private.json"
    private.write_text(json.dumps({"keys": [dict(TestIdp("https://idp.example").key.as_dict(private=True))]}))
    with pytest.raises(InvalidInput, match="holds the private member 'd'"):
        idps.jwks_file(str(private))
    with pytest.raises(InvalidInput, match="cannot be read"):
        idps.jwks_file(str(tmp_path / "missing.json"))
