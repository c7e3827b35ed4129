"""GET and POST /console/client-new (register a client) and /console/client-edit?client_id=X (change one): the forms
of `authgate clients create` and `update`, taken by the same operation (administration.clients) with the same checks
and messages.

Both ask `clients.change` (operators.roles: owner, admin) before anything is read or any form field is looked at,
then in the client's tenant. A form's fields are the command's options: lists one a line, grants one checkbox each,
yes-or-no options a checkbox. A form is taken once (console.clients.once): a reload of the answer, or a form sent
again, is refused and changes nothing, so a new client's secret, shown on the answer page, is shown once. Each is the
command's audit event (client.registered, client.changed) by the operator, naming their roles; a refusal is a
failure with its reason.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence

from authgate import audit
from authgate.administration.client_registration import Asked, check_create
from authgate.administration.input import GRANT_NAMES, GRANT_URNS, InvalidInput
from authgate.clients.model import AUTH_METHODS, Client
from authgate.console.clients import bounded, client_url, judged, once
from authgate.console.pages import (
    STEP,
    Link,
    allow,
    allow_somewhere,
    done,
    form_page,
    query_value,
    recorded,
    secret_once,
    url,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.oauth.clients.recorded import facts

e = html.escape


def get_new(request: Request, signed: SignedIn) -> Response:
    allow_somewhere(signed, "clients.change")
    tenant = query_value(request, "tenant", 64)
    if tenant:
        allow(signed, "clients.change", tenant)
    from authgate.stores.tenants import TenantStore

    tenants = sorted(t.tenant_id for t in TenantStore().list())
    fields = "\n".join((
        _text("client_id", "Client id", "", "Empty: a generated one. An https URL registers a metadata-document "
                                            "client over its cached document."),
        _select("tenant", "Tenant", tenants, tenant),
        _select("type", "Type", ("confidential", "public"), "confidential"),
        _text("name", "Name", "", "Shown on the consent page. Empty: the client id."),
        _lines("redirect_uri", "Redirect URIs", (), "One a line, exactly as the application sends it."),
        _grants(()),
        _text("scope", "Scopes", "", "Separated by spaces: the charges API's, the OpenID Provider's or a "
                                     "registered resource's."),
        _select("error_format", "Error format", ("problem", "legacy-a", "legacy-b"), "problem"),
        _check("requires_admin_approval", "Users may authorize it only after the tenant's administrator approves it",
               False),
        *_common(None)))
    return _form_page(request, signed, "Register a client", "client-new", fields, "Register",
                      Link(url(request, "clients", [("tenant", tenant)] if tenant else []), "Cancel"))


def post_new(request: Request, signed: SignedIn) -> Response:
    from authgate.administration import clients as administration

    allow_somewhere(signed, "clients.change")
    fields = form_fields(request, STEP)
    tenant = bounded(fields.get("tenant", ""), "tenant", 64)
    allow(signed, "clients.change", tenant or None)
    asked = _asked(fields, Asked(client_id=fields.get("client_id") or None, tenant=tenant,
                                 type=_chosen(fields, "type", ("confidential", "public")),
                                 name=fields.get("name") or None,
                                 redirect_uri=_split_lines(fields.get("redirect_uri", "")),
                                 scope=fields.get("scope", "").split(),
                                 error_format=_chosen(fields, "error_format", ("problem", "legacy-a", "legacy-b")),
                                 requires_admin_approval=bool(fields.get("requires_admin_approval"))))
    target = audit.Party("client", asked.client_id or "")

    def failed(reason: str) -> None:
        recorded(signed, "client.registered", tenant, target, "create", outcome="failure", reason=reason)

    once(fields)
    try:
        check_create(asked)
        _existing_tenant(tenant)
        client, secret = administration.create(asked)
    except (InvalidInput, administration.ClientTaken) as exc:
        failed("invalid_input" if isinstance(exc, InvalidInput) else "client_exists")
        raise ApiError("invalid_request", str(exc)) from None
    recorded(signed, "client.registered", client.tenant_id, audit.Party("client", client.client_id), "create",
             **facts(client))
    more = secret_once("Client secret", secret, administration.SECRET_KEPT_ONCE) if secret else ""
    return done(request, signed, title=f"Registered: {client.client_id}", said=f"client_id: {client.client_id}",
                back=Link(client_url(request, client.client_id), f"To {client.client_id}"), current="clients",
                more=more)


def get_edit(request: Request, signed: SignedIn) -> Response:
    client = judged(request, signed, "clients.change", query_value(request, "client_id"))
    fields = "\n".join((
        f'<input type="hidden" name="client_id" value="{e(client.client_id)}">',
        _text("name", "Name", client.name, "Shown on the consent page."),
        _grants(client.grant_types),
        *_common(client)))
    return _form_page(request, signed, f"Change {client.client_id}", "client-edit", fields, "Save the changes",
                      Link(client_url(request, client.client_id), "Cancel"))


def post_edit(request: Request, signed: SignedIn) -> Response:
    from authgate.administration import clients as administration
    from authgate.administration.input import client_grants
    from authgate.clients.errors import ClientNotFound

    allow_somewhere(signed, "clients.change")
    fields = form_fields(request, STEP)
    client = judged(request, signed, "clients.change", fields.get("client_id", ""))
    asked = _asked(fields, Asked(name=fields.get("name", "")))
    target = audit.Party("client", client.client_id)
    once(fields)
    try:
        if not asked.grant:
            client_grants((), client.client_type, client.redirect_uris)  # says a client needs a grant
        # A resource of the client's grants left out of the form is withdrawn ("RESOURCE=").
        given = {line.partition("=")[0].strip() for line in asked.resource_scopes}
        asked = asked._replace(resource_scopes=[*asked.resource_scopes, *(
            f"{uri}=" for uri, _ in client.resource_scopes if uri not in given)])
        updated = administration.update(client.client_id, asked)
    except InvalidInput as exc:
        recorded(signed, "client.changed", client.tenant_id, target, "update", outcome="failure",
                 reason="invalid_input")
        raise ApiError("invalid_request", str(exc)) from None
    except ClientNotFound:
        raise ApiError("not_found", f"There is no client {client.client_id!r}.") from None
    recorded(signed, "client.changed", updated.tenant_id, target, "update", **facts(updated),
             changed=[f for f in Client._fields if f != "secret_hash" and getattr(client, f) != getattr(updated, f)])
    return done(request, signed, title=f"Changed: {updated.client_id}", said=administration.updated_said(updated),
                back=Link(client_url(request, updated.client_id), f"To {updated.client_id}"), current="clients")


def _asked(fields: Mapping[str, str], asked: Asked) -> Asked:
    """The options both forms share, read into `asked`."""
    return asked._replace(
        grant=[name for name in GRANT_NAMES if fields.get(f"grant.{name}")],
        auth_method=_chosen(fields, "auth_method", ("", *AUTH_METHODS)) or None,
        jwks=fields.get("jwks", "").strip() or None,
        profile=_chosen(fields, "profile", ("", "fapi2", "none")) or None, require_par=bool(fields.get("require_par")),
        # As typed: the operation checks it against what the stack offers, with the command's message.
        id_token_signed_response_alg=fields.get("id_token_signed_response_alg", "").strip() or None,
        post_logout_redirect_uri=_split_lines(fields.get("post_logout_redirect_uri", "")),
        backchannel_logout_uri=fields.get("backchannel_logout_uri", ""),
        backchannel_logout_session_required=bool(fields.get("backchannel_logout_session_required")),
        resource_scopes=_split_lines(fields.get("resource_scopes", "")))


def _chosen(fields: Mapping[str, str], name: str, choices: Sequence[str]) -> str:
    """A field whose value is one of `choices` (its first when absent), as the command's option takes it."""
    value = fields.get(name, choices[0])
    if value not in choices:
        raise ApiError("invalid_request", f"The {name} field must be one of {', '.join(c for c in choices if c)}.")
    return value


def _existing_tenant(tenant: str) -> None:
    from authgate.stores.tenants import TenantStore

    if TenantStore().get(tenant) is None:
        raise InvalidInput(f"tenant {tenant!r} does not exist here")


def _common(client: Client | None) -> list[str]:
    """The fields of both forms past the grants: authentication, keys, profile, logout, resource grants."""
    keys = "Empty: the keys stay as they are." if client else "For private_key_jwt."
    return [
        _select("auth_method", "Token endpoint authentication", ("", *AUTH_METHODS),
                client.token_endpoint_auth_method if client else "",
                "Empty: a secret, or none for a public client." if not client else "Empty: as it is."),
        _lines("jwks", "Public keys (a JWK Set, JSON)", (), keys),
        _select("profile", "Profile", ("", "fapi2", *(("none",) if client else ())), "",
                "fapi2: the FAPI 2.0 Security Profile (PAR, PKCE S256, private_key_jwt, DPoP)."
                + (f" Now: {client.profile or 'none'}; empty keeps it." if client else "")),
        _id_token_alg(client),
        _check("require_par", "Authorization requests must be pushed (PAR, RFC 9126)",
               bool(client and client.require_pushed_authorization_requests)),
        _lines("post_logout_redirect_uri", "Post-logout redirect URIs",
               client.post_logout_redirect_uris if client else (), "One a line (RP-Initiated Logout)."),
        _text("backchannel_logout_uri", "Back-channel logout URI", client.backchannel_logout_uri if client else "",
              "https; where a logout token is posted when a session ends." + (" Empty: none." if client else "")),
        _check("backchannel_logout_session_required", "Every logout token must carry sid",
               bool(client and client.backchannel_logout_session_required)),
        _lines("resource_scopes", "Registered resources' scopes",
               [f"{uri}={' '.join(scopes)}" for uri, scopes in client.resource_scopes] if client else (),
               "One resource a line: https://mcp.example.com/mcp=mcp:read mcp:write"),
    ]


def _id_token_alg(client: Client | None) -> str:
    """--id-token-signed-response-alg: the algorithms the stack offers (its SigningAlgorithm and RS256)."""
    from authgate.administration.client_registration import offered_id_token_algs

    now = client.id_token_signed_response_alg if client else ""
    return _select("id_token_signed_response_alg", "ID token signing algorithm", ("", *offered_id_token_algs()), now,
                   "The JWS algorithm of the client's ID and logout tokens (OpenID Connect Dynamic Client "
                   "Registration 1.0 2). " + (f"Now: {client.id_token_alg}; empty keeps it." if client
                                              else "Empty: RS256."))


def _form_page(request: Request, signed: SignedIn, title: str, target: str, fields: str, label: str,
               cancel: Link) -> Response:
    return form_page(request, signed, title=title, target=target, inner=f"{fields}\n", label=label, cancel=cancel,
                     current="clients", css="client")


def _hint(name: str, hint: str) -> tuple[str, str]:
    """(the aria-describedby attribute, the hint's paragraph) of a field, or ("", "")."""
    if not hint:
        return "", ""
    return f' aria-describedby="{name}-hint"', f'<p class="fine" id="{name}-hint">{e(hint)}</p>'


def _text(name: str, label: str, value: str, hint: str = "") -> str:
    described, said = _hint(name, hint)
    return (f'<label for="{name}">{e(label)}</label>\n<input id="{name}" name="{name}" value="{e(value)}"'
            f' autocomplete="off" spellcheck="false"{described}>\n{said}')


def _lines(name: str, label: str, values: Iterable[str], hint: str = "") -> str:
    described, said = _hint(name, hint)
    return (f'<label for="{name}">{e(label)}</label>\n<textarea id="{name}" name="{name}" rows="3"'
            f' spellcheck="false"{described}>{e(chr(10).join(values))}</textarea>\n{said}')


def _select(name: str, label: str, options: Sequence[str], chosen: str, hint: str = "") -> str:
    described, said = _hint(name, hint)
    listed = "\n".join(f'<option value="{e(o)}"{" selected" if o == chosen else ""}>{e(o) or "(default)"}</option>'
                       for o in options)
    return f'<label for="{name}">{e(label)}</label>\n<select id="{name}" name="{name}"{described}>\n{listed}\n</select>'\
           f"\n{said}"


def _check(name: str, label: str, checked: bool) -> str:
    return (f'<label class="check"><input type="checkbox" name="{name}" value="yes"'
            f'{" checked" if checked else ""}> {e(label)}</label>')


def _grants(held: Sequence[str]) -> str:
    boxes = "\n".join(_check(f"grant.{name}", name, GRANT_URNS.get(name, name) in held) for name in GRANT_NAMES
                       if name != "token-exchange")  # a resource's, never a client's (administration.input)
    return f'<fieldset>\n<legend>Grants</legend>\n{boxes}\n</fieldset>'


def _split_lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]
