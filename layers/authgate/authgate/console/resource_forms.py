"""The console's resource actions: register (/console/resources/new), change (/console/resource/edit?uri=U) and
delete (/console/resource/delete?uri=U), each a GET (the form, or the confirmation) and a POST that acts.

Each is the operation `authgate resources create|update|delete` runs (authgate.administration.resources), with its
checks and its words: a refusal is the 400 page with the sentence the command prints. `resources.change` (owner,
admin) is judged for no tenant before anything is read or written, whatever the form says; a form carries a CSRF
token (interaction.pages). Registering answers with the introspection client's id and secret, once: the page is never
cached, and the secret is in no log line nor audit event. Each action is its command's audit event
(resource.created, resource.changed, resource.deleted), by the operator, naming their roles.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from authgate import audit
from authgate.audit.actions import Action as AuditAction
from authgate.console.pages import (
    STEP,
    Link,
    allow,
    confirmation,
    definitions,
    done,
    form_page,
    recorded,
)
from authgate.console.resources import CURRENT, missing, named, resource_url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.resources.model import Resource

RULE = "resources.change"
SECRET_ONCE = "The secret is shown once and stored only as a hash: keep it now (POST /oauth/introspect)."


class Field(NamedTuple):
    name: str  # the form's field
    label: str
    hint: str = ""  # what it takes, under the label
    lines: bool = False  # a textarea of one value a line


_URI = Field("uri", "Resource URI", "an absolute https URI, the aud of its tokens (RFC 8707)")
_SCOPES = Field("scopes", "Scopes", 'space-separated: "mcp:read mcp:write"')
_TENANTS = Field("tenants", "Tenants", "comma-separated tenants that may use it; empty: every tenant")
_NAME = Field("name", "Name", 'its name on the consent page, e.g. "Files" (empty: its URI)')
_DESCRIPTION = Field("description", "Description", "what it holds, one sentence under its name on the consent page")
_SCOPE_TEXTS = Field("scope_descriptions", "What each scope allows",
                     'one SCOPE=TEXT a line: mcp:read=Read your files (a scope without one is shown by its name)',
                     lines=True)
_DELEGATES = Field("may_delegate_to", "May delegate to",
                   "the resources its server may exchange its tokens for (RFC 8693), one URI a line", lines=True)
_TYPE = Field("authorization_details_type", "Declare an authorization_details type",
              "its name (RFC 9396 2); declaring one it has replaces its schema")
_SCHEMA = Field("schema", "Its JSON Schema", "Draft 2020-12, which the objects of that type must match", lines=True)
_REMOVE_TYPE = Field("remove_authorization_details_type", "Withdraw an authorization_details type", "its name")
CREATE_FIELDS = (_URI, _SCOPES, _TENANTS, _NAME, _DESCRIPTION, _SCOPE_TEXTS, _DELEGATES)
EDIT_FIELDS = (_SCOPES, _TENANTS, _NAME, _DESCRIPTION, _SCOPE_TEXTS, _DELEGATES, _TYPE, _SCHEMA, _REMOVE_TYPE)


def get_new(request: Request, signed: SignedIn) -> Response:
    allow(signed, RULE)
    return _form(request, signed, "Register a resource", "resources/new", CREATE_FIELDS, {}, "Register",
                 Link(_list(request), "Cancel"))


def post_new(request: Request, signed: SignedIn) -> Response:
    allow(signed, RULE)
    fields = form_fields(request, STEP)
    from authgate.administration.resources import create

    uri = fields.get("uri", "")
    created = _acting(signed, "resource.created", uri, "resources.create", lambda: create(
        uri, fields.get("scopes", ""), fields.get("tenants", ""), _wording(fields),
        _lines(fields.get("may_delegate_to", "")) or None, local=_local()))
    resource = created.resource
    client_id = resource.introspection_client_id
    more = definitions("Introspection credentials", [("Client id", client_id), ("Client secret", created.secret or "")]) \
        + f"\n<p>{html.escape(SECRET_ONCE)}</p>\n"
    return done(request, signed, title=f"Registered: {resource.resource}",
                said=f"resource {resource.resource} registered, with its introspection client {client_id}",
                back=Link(resource_url(request, resource.resource), f"Open {resource.resource}"), current=CURRENT,
                more=more)


def get_edit(request: Request, signed: SignedIn) -> Response:
    allow(signed, RULE)
    resource = _existing(named(request))
    values = {"scopes": " ".join(resource.scopes), "tenants": ",".join(resource.tenants), "name": resource.name,
              "description": resource.description,
              "scope_descriptions": "\n".join(f"{s}={t}" for s, t in resource.scope_descriptions),
              "may_delegate_to": "\n".join(resource.may_delegate_to)}
    return _form(request, signed, f"Change {resource.resource}", "resource/edit", EDIT_FIELDS, values, "Save",
                 Link(resource_url(request, resource.resource), "Cancel"), hidden=(("uri", resource.resource),))


def post_edit(request: Request, signed: SignedIn) -> Response:
    allow(signed, RULE)
    fields = form_fields(request, STEP)
    from authgate.administration.input import InvalidInput
    from authgate.administration.resources import Change, detail_type, get, update
    from authgate.resources.errors import ResourceNotFound

    uri = _posted(fields)

    def change() -> Resource:
        before = get(uri)
        if before is None:  # recorded as a deletion's is (unknown_resource), and as the command records it
            raise ResourceNotFound(uri)
        kind, schema = fields.get("authorization_details_type", "").strip(), fields.get("schema", "").strip()
        if bool(kind) != bool(schema):
            raise InvalidInput("--authorization-details-type and --schema go together")
        added = detail_type(kind, schema, "the schema") if kind else None
        wording = _wording(fields, before)
        return update(uri, Change(fields.get("scopes", ""), fields.get("tenants", ""), wording,
                                  _lines(fields.get("may_delegate_to", "")) or [""], added,
                                  fields.get("remove_authorization_details_type", "").strip() or None),
                      local=_local())

    updated = _acting(signed, "resource.changed", uri, "resources.update", change)
    return done(request, signed, title=f"Changed: {uri}", said=f"resource {updated.resource} changed",
                back=Link(resource_url(request, uri), f"Back to {uri}"), current=CURRENT)


def get_delete(request: Request, signed: SignedIn) -> Response:
    allow(signed, RULE)
    resource = _existing(named(request))
    client = resource.introspection_client_id or "-"
    return confirmation(request, signed, title=f"Delete {resource.resource}?",
                        does=f"The resource and its introspection client {client} are removed: no token is issued "
                             "for it any more, and tokens already issued for it expire on their own.",
                        target="resource/delete", fields=(("uri", resource.resource),), label="Delete",
                        cancel=Link(resource_url(request, resource.resource), "Cancel"), current=CURRENT)


def post_delete(request: Request, signed: SignedIn) -> Response:
    allow(signed, RULE)
    fields = form_fields(request, STEP)
    from authgate.administration.resources import delete, deleted

    uri = _posted(fields)
    resource = _acting(signed, "resource.deleted", uri, "resources.delete", lambda: delete(uri))
    return done(request, signed, title=f"Deleted: {uri}", said=deleted(resource),
                back=Link(_list(request), "Back to the resources"), current=CURRENT)


def _acting(signed: SignedIn, action: AuditAction, uri: str, console_action: str, act: Callable[[], Any]) -> Any:
    """`act`, recorded as `action` on resource `uri` (a refusal too, with its reason); a refusal is its page."""
    from authgate.administration.input import InvalidInput
    from authgate.resources.errors import ResourceExists, ResourceNotFound

    target = audit.Party("resource", uri[:2000] or "-")
    try:
        result = act()
    except InvalidInput as exc:
        recorded(signed, action, "", target, console_action, outcome="failure", reason="invalid_input")
        raise _invalid(str(exc)) from None
    except ResourceExists as exc:
        recorded(signed, action, "", target, console_action, outcome="failure", reason="resource_exists")
        raise _invalid(str(exc)) from None
    except ResourceNotFound:
        recorded(signed, action, "", target, console_action, outcome="failure", reason="unknown_resource")
        raise missing(uri) from None
    resource: Resource = result if isinstance(result, Resource) else result.resource
    recorded(signed, action, "", target, console_action, scopes=" ".join(resource.scopes),
             tenants=",".join(resource.tenants) or "all", introspection_client_id=resource.introspection_client_id)
    return result


def _posted(fields: dict[str, str]) -> str:
    """The resource a form names (its hidden uri), required."""
    if not fields.get("uri"):
        raise ApiError("invalid_request", "Name the resource with uri.")
    return fields["uri"]


def _invalid(message: str) -> ApiError:
    """A refusal's page: the sentence `authgate resources` prints."""
    return ApiError("invalid_request", message)


def _existing(uri: str) -> Resource:
    from authgate.administration.resources import get

    resource = get(uri)
    if resource is None:
        raise missing(uri)
    return resource


def _wording(fields: dict[str, str], before: Resource | None = None) -> Any:
    """The name, the description and each scope's text as the form holds them: a scope's text the form no longer
    has is dropped (SCOPE=), as the form shows every text there is."""
    from authgate.administration.resources import Wording

    texts = _lines(fields.get("scope_descriptions", ""))
    given = {line.partition("=")[0] for line in texts}
    scopes = set(fields.get("scopes", "").split())
    dropped = [f"{scope}=" for scope, _ in (before.scope_descriptions if before else ())
               if scope not in given and scope in scopes]
    return Wording(fields.get("name", "").strip(), fields.get("description", "").strip(), texts + dropped)


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


def _local() -> bool:
    """Whether this is the local stack (loopback http resources are accepted there only)."""
    from authgate.settings import get_settings

    return get_settings().stage == "local"


def _list(request: Request) -> str:
    from authgate.console.pages import url

    return url(request, "resources")


def _form(request: Request, signed: SignedIn, title: str, target: str, fields: Sequence[Field],
          values: dict[str, str], label: str, cancel: Link, hidden: Sequence[tuple[str, str]] = ()) -> Response:
    """A form of `fields` (filled with `values`) that posts to the console page `target`, with a CSRF token."""
    e = html.escape
    inputs = ""
    for field in fields:
        hint_id = f"{field.name}-hint"
        value = values.get(field.name, "")
        control = (f'<textarea id="{field.name}" name="{field.name}" rows="4" aria-describedby="{hint_id}" '
                   f'spellcheck="false">{e(value)}</textarea>' if field.lines else
                   f'<input id="{field.name}" name="{field.name}" value="{e(value)}" aria-describedby="{hint_id}" '
                   'autocomplete="off" spellcheck="false">')
        inputs += (f'<label for="{field.name}">{e(field.label)}</label>\n'
                   f'<p class="fine" id="{hint_id}">{e(field.hint)}</p>\n{control}\n')
    return form_page(request, signed, title=title, target=target, inner=inputs, label=label, cancel=cancel,
                     current=CURRENT, hidden=hidden)
