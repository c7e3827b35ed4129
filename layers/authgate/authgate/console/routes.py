"""GET /console and /console/{proxy+}: the console's pages by name, each imported on its first request.

A page of a signed-in operator (`signed`) gets the request's session and operator (console.session) or, without
one, the sign-in (console.sign_in.start) that brings the browser back to it; the callback, the sign-out and the
"signed out" page need none. An unknown page is 404, a known one with another method 405 with Allow, as the App
answers for a resource.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import urlencode

from authgate.console import session, sign_in
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response


class Page(NamedTuple):
    handler: str  # "module:function"
    signed: bool = True


_PEOPLE = "authgate.console.people"
_SAML_KEYS = "authgate.console.saml_keys"
_CLIENT_FORMS = "authgate.console.client_forms"
_RESOURCES, _RESOURCE_FORMS, _KEYS = "authgate.console.resources", "authgate.console.resource_forms", "authgate.console.keys"
PAGES: dict[tuple[str, str], Page] = {
    ("", "GET"): Page("authgate.console.home:get_home"),
    ("people", "GET"): Page(f"{_PEOPLE}:get_people"),
    ("person", "GET"): Page("authgate.console.person:get_person"),
    ("act", "GET"): Page("authgate.console.act:get_act"),
    ("act", "POST"): Page("authgate.console.act:post_act"),
    ("clients", "GET"): Page("authgate.console.clients:get_clients"),
    ("client", "GET"): Page("authgate.console.registration:get_client"),
    ("client-new", "GET"): Page(f"{_CLIENT_FORMS}:get_new"),
    ("client-new", "POST"): Page(f"{_CLIENT_FORMS}:post_new"),
    ("client-edit", "GET"): Page(f"{_CLIENT_FORMS}:get_edit"),
    ("client-edit", "POST"): Page(f"{_CLIENT_FORMS}:post_edit"),
    ("client-act", "GET"): Page("authgate.console.client_act:get_act"),
    ("client-act", "POST"): Page("authgate.console.client_act:post_act"),
    ("tenants", "GET"): Page("authgate.console.tenants:get_tenants"),
    ("tenant", "GET"): Page("authgate.console.tenant:get_tenant"),
    ("tenant-create", "GET"): Page("authgate.console.tenant_create:get_tenant_create"),
    ("tenant-create", "POST"): Page("authgate.console.tenant_create:post_tenant_create"),
    ("tenant-update", "GET"): Page("authgate.console.tenant_update:get_tenant_update"),
    ("tenant-update", "POST"): Page("authgate.console.tenant_update:post_tenant_update"),
    ("resources", "GET"): Page(f"{_RESOURCES}:get_resources"),
    ("resource", "GET"): Page(f"{_RESOURCES}:get_resource"),
    ("resources/new", "GET"): Page(f"{_RESOURCE_FORMS}:get_new"),
    ("resources/new", "POST"): Page(f"{_RESOURCE_FORMS}:post_new"),
    ("resource/edit", "GET"): Page(f"{_RESOURCE_FORMS}:get_edit"),
    ("resource/edit", "POST"): Page(f"{_RESOURCE_FORMS}:post_edit"),
    ("resource/delete", "GET"): Page(f"{_RESOURCE_FORMS}:get_delete"),
    ("resource/delete", "POST"): Page(f"{_RESOURCE_FORMS}:post_delete"),
    ("keys", "GET"): Page(f"{_KEYS}:get_keys"),
    ("key", "GET"): Page(f"{_KEYS}:get_key"),
    ("keys/rotate", "GET"): Page(f"{_KEYS}:get_rotate"),
    ("keys/rotate", "POST"): Page(f"{_KEYS}:post_rotate"),
    ("saml-keys", "GET"): Page(f"{_SAML_KEYS}:get_list"),
    ("saml-key", "GET"): Page(f"{_SAML_KEYS}:get_key"),
    ("saml-keys/add", "GET"): Page(f"{_SAML_KEYS}:get_add"),
    ("saml-keys/add", "POST"): Page(f"{_SAML_KEYS}:post_add"),
    ("saml-keys/retire", "GET"): Page(f"{_SAML_KEYS}:get_retire"),
    ("saml-keys/retire", "POST"): Page(f"{_SAML_KEYS}:post_retire"),
    ("events", "GET"): Page("authgate.console.events:get_events"),
    ("event", "GET"): Page("authgate.console.events:get_event"),
    ("events/verify", "GET"): Page("authgate.console.verification:get_verify"),
    ("operators", "GET"): Page("authgate.console.operators:get_operators"),
    ("operator-role", "GET"): Page("authgate.console.operators:get_role_change"),
    ("operator-role", "POST"): Page("authgate.console.operators:post_role_change"),
    ("person-new", "GET"): Page("authgate.console.person_form:get_new"),
    ("person-new", "POST"): Page("authgate.console.person_form:post_new"),
    ("person-edit", "GET"): Page("authgate.console.person_form:get_edit"),
    ("person-edit", "POST"): Page("authgate.console.person_form:post_edit"),
    ("idps", "GET"): Page("authgate.console.idps:get_idps"),
    ("idp", "GET"): Page("authgate.console.idp:get_idp"),
    ("idp-create", "GET"): Page("authgate.console.idp_form:get_create"),
    ("idp-create", "POST"): Page("authgate.console.idp_actions:post_create"),
    ("idp-update", "GET"): Page("authgate.console.idp_form:get_update"),
    ("idp-update", "POST"): Page("authgate.console.idp_actions:post_update"),
    ("idp-delete", "GET"): Page("authgate.console.idp_actions:get_delete"),
    ("idp-delete", "POST"): Page("authgate.console.idp_actions:post_delete"),
    ("callback", "GET"): Page("authgate.console.sign_in:callback", signed=False),
    ("sign-out", "POST"): Page("authgate.console.sign_out:post_sign_out", signed=False),
    ("signed-out", "GET"): Page("authgate.console.sign_out:get_signed_out", signed=False),
}


def console(request: Request) -> Response:
    """The page the path names, for the signed-in operator (or the sign-in first)."""
    name = request.path_params.get("proxy", "").strip("/")
    found = PAGES.get((name, request.method))
    if found is None:
        allowed = sorted(method for page, method in PAGES if page == name)
        if allowed:
            raise ApiError("method_not_allowed", f"{request.method} is not allowed on {request.path}.",
                           headers={"Allow": ", ".join(allowed)})
        raise ApiError("not_found", f"The console has no page {request.path}.")
    handler = _handler(found.handler)
    if not found.signed:
        return handler(request)
    signed = session.signed_in(request)
    if signed is None:
        query = urlencode([(k, v) for k, values in request.query.items() for v in values])
        return sign_in.start(request, f"/console{'/' + name if name else ''}" + (f"?{query}" if query else ""))
    return handler(request, signed)


def _handler(path: str) -> Callable[..., Response]:
    module, _, attr = path.partition(":")
    handler: Callable[..., Response] = getattr(importlib.import_module(module), attr)
    return handler
