"""The console function as the template's ConsoleClientBootstrap custom resource: the client ensured for the
stage's issuer at each deploy, removed with the stack, and CloudFormation told either way."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.cloudformation_support import answers

Invoke = Any


def _request(kind: str, url: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"RequestType": kind, "ResponseURL": url, "StackId": "stack", "RequestId": f"req-{kind}",
            "LogicalResourceId": "ConsoleClientBootstrap", "ResourceProperties": properties}


@pytest.mark.slow
def test_each_deploy_ensures_the_console_client_for_the_issuer_and_deleting_the_stack_removes_it(
        aws: None, invoke: Invoke) -> None:
    from authgate.stores.clients import ClientStore

    issuer = "https://auth.example.com"
    with answers() as (url, received):
        for kind in ("Create", "Update"):
            assert invoke("console", _request(kind, url, {"Issuer": issuer, "OperatorsTenant": "operators"})) == {
                "status": "SUCCESS"}
            client = ClientStore().get("authgate-console")
            assert client is not None and client.redirect_uris == (f"{issuer}/console/callback",)
        assert invoke("console", _request("Delete", url, {"Issuer": issuer})) == {"status": "SUCCESS"}
        assert ClientStore().get("authgate-console") is None
        assert invoke("console", _request("Update", url, {})) == {"status": "FAILED"}  # no Issuer: a broken template
    assert received == [
        {"Status": "SUCCESS", "Reason": "SUCCESS", "PhysicalResourceId": "authgate-console-client", "StackId": "stack",
         "RequestId": f"req-{kind}", "LogicalResourceId": "ConsoleClientBootstrap"}
        for kind in ("Create", "Update", "Delete")] + [
        {"Status": "FAILED", "Reason": "console client update failed: KeyError",
         "PhysicalResourceId": "authgate-console-client", "StackId": "stack", "RequestId": "req-Update",
         "LogicalResourceId": "ConsoleClientBootstrap"}]
