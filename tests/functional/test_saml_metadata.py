"""GET /saml/{tenant}/metadata through the jwks function: a tenant's SAML service provider metadata, whole."""

from __future__ import annotations

import json

from authgate_cli.local.events import HttpRequest, build_event
from tests.saml_support import key_descriptors, signing_key, store_sp_keys

RESOURCE = "/saml/{tenant}/metadata"


def get(invoke, tenant: str, method: str = "GET", accept: str = "*/*"):  # type: ignore[no-untyped-def]
    path = f"/saml/{tenant}/metadata"
    request = HttpRequest(method, path, "", [("Host", "127.0.0.1:3000"), ("Accept", accept)])
    return invoke("jwks", build_event(request, resource=RESOURCE, path_params={"tenant": tenant}))


def headers_of(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    headers = {k: ", ".join(v) for k, v in result["multiValueHeaders"].items()}
    assert headers.pop("x-request-id")
    return headers


def test_the_tenants_sp_metadata_is_served(aws: None, invoke) -> None:  # type: ignore[no-untyped-def]
    result = get(invoke, "demo")
    assert (result["statusCode"], headers_of(result), result.get("isBase64Encoded", False)) == (
        200, {"Content-Type": "application/samlmetadata+xml", "Cache-Control": "public, max-age=3600"}, False)
    assert result["body"] == """<?xml version='1.0' encoding='utf-8'?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="http://127.0.0.1:3000/saml/demo">
  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="http://127.0.0.1:3000/saml/demo/slo"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http://127.0.0.1:3000/saml/demo/acs" index="0" isDefault="true"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>
"""


def test_a_tenant_that_does_not_exist_gets_the_same_document_for_its_name(aws: None, invoke) -> None:  # type: ignore[no-untyped-def]
    """No table is read: the answer says nothing about which tenants exist."""
    demo, other = get(invoke, "demo"), get(invoke, "no-such-tenant")
    assert (other["statusCode"], headers_of(other)) == (200, headers_of(demo))
    assert other["body"] == demo["body"].replace("/saml/demo", "/saml/no-such-tenant")


def test_a_name_no_tenant_can_have_is_not_found(aws: None, invoke) -> None:  # type: ignore[no-untyped-def]
    tenant = "t" * 201
    result = get(invoke, tenant, accept="application/json")
    headers = headers_of(result)
    assert (result["statusCode"], headers) == (404, {"Content-Type": "application/problem+json", "Vary": "Accept"})
    assert json.loads(result["body"]) == {
        "type": "http://127.0.0.1:3000/problems/not_found", "title": "Not found", "status": 404,
        "detail": "There is no SAML service provider at this path.", "instance": f"/saml/{tenant}/metadata",
        "code": "not_found", "traceId": result["multiValueHeaders"]["x-request-id"][0]}


def test_another_method_is_not_allowed(aws: None, invoke) -> None:  # type: ignore[no-untyped-def]
    result = get(invoke, "demo", method="POST", accept="application/json")
    assert (result["statusCode"], headers_of(result)) == (
        405, {"Content-Type": "application/problem+json", "Vary": "Accept", "Allow": "GET"})
    assert json.loads(result["body"]) == {
        "type": "http://127.0.0.1:3000/problems/method_not_allowed", "title": "Method not allowed", "status": 405,
        "detail": "POST is not allowed on /saml/{tenant}/metadata.", "instance": "/saml/demo/metadata",
        "code": "method_not_allowed", "traceId": result["multiValueHeaders"]["x-request-id"][0]}


def test_once_the_stack_has_signing_keys_every_tenants_metadata_publishes_them(aws: None, invoke) -> None:  # type: ignore[no-untyped-def]
    """The certificates are the stack's, not a tenant's: a tenant that does not exist gets them all the same."""
    unsigned = get(invoke, "demo")["body"]
    first, second = signing_key("sp"), signing_key("sp-next")
    store_sp_keys(first, second)
    demo, other = get(invoke, "demo"), get(invoke, "no-such-tenant")
    assert (demo["statusCode"], headers_of(demo)) == (
        200, {"Content-Type": "application/samlmetadata+xml", "Cache-Control": "public, max-age=3600"})
    assert demo["body"] == unsigned.replace('AuthnRequestsSigned="false"', 'AuthnRequestsSigned="true"').replace(
        "\n    <md:SingleLogoutService", key_descriptors(first, second) + "\n    <md:SingleLogoutService")
    assert other["body"] == demo["body"].replace("/saml/demo", "/saml/no-such-tenant")
