"""GET /console/idp-create?tenant=T&kind=K and /console/idp-update?tenant=T&idp_id=I: the forms that add an identity
provider (an OpenID Provider, Google, Apple, or a SAML 2.0 IdP by its metadata) or change one; what a form gives.

Allowed by `idps.change` in the tenant (operators.roles: owner, admin), judged before anything is read. A form asks for
what `authgate idps create|update` takes, under the same names; console.idp_actions posts it. The client secret is a
password field (Apple's private key a text area), never filled in again: the update form leaves it empty, and an empty
one keeps the secret as it is.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from authgate.administration.identity_providers import Given
from authgate.console.idp import found, named
from authgate.console.idps import KINDS, link
from authgate.console.pages import STEP, Link, allow, page, query_value, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.identity_providers.model import PRESETS, STEP_UPS, IdentityProvider
from authgate.interaction.pages import csrf_fields

e = html.escape
# The metadata pasted in the form, as its refusals name it.
PASTED = "the metadata XML"
_WORDS = re.compile(r"[\s,]+")


def get_create(request: Request, signed: SignedIn) -> Response:
    tenant, kind = query_value(request, "tenant", 64), query_value(request, "kind", 16)
    allow(signed, "idps.change", tenant or None)
    kind_of(kind)
    tenant_exists(tenant)
    first = {"oidc": [_field("issuer", "Issuer", kind="url", hint="The IdP's issuer identifier, an https URL "
                                                                   "(the iss of its ID tokens).", required=True)],
             "google": [], "apple": [],
             "saml": [_field("metadata_url", "Metadata URL", kind="url",
                             hint="Where the IdP publishes its SAML metadata (https), fetched now; or paste the "
                                  "metadata below."),
                      _textarea("metadata", "Metadata XML", "The IdP's EntityDescriptor, as it offers it for "
                                                             "download.")]}[kind]
    client = {"saml": [], "apple": _apple()}.get(kind) or [
        _field("client_id", "Client ID", hint="The client the IdP registered for authgate.", required=True),
        _secret(required=True)]
    scopes = [_field("scopes", "Scopes", hint="What a sign-in asks for; empty: openid email profile.")] \
        if kind == "oidc" else []
    fields = [*first, *client, *scopes,
              _field("label", "Label", hint='The sign-in button\'s text, e.g. "Acme SSO".', required=kind not in PRESETS),
              _field("idp_id", "ID", hint="Its short id in the tenant (lower-case letters, digits, -); empty: from "
                                          "the label or the issuer's host."),
              *_trust(None)]
    title = f"{KINDS[kind]} ({tenant})"
    return _form(request, signed, title, "idp-create", [("tenant", tenant), ("kind", kind)], fields, "Add",
                 Link(url(request, "idps", [("tenant", tenant)]), "Cancel"))


def get_update(request: Request, signed: SignedIn) -> Response:
    tenant, idp_id, issuer = named(request)
    allow(signed, "idps.change", tenant)
    idp = found(tenant, idp_id, issuer)
    fields = [_field("label", "Label", idp.label, hint='The sign-in button\'s text; empty: as it is.'), *_trust(idp)]
    if idp.protocol == "oidc" and idp.preset != "apple":
        fields.append(_secret(required=False))
    return _form(request, signed, f"Change {idp.label or idp.idp_id or idp.issuer} ({tenant})", "idp-update",
                 [("tenant", tenant), ("issuer", idp.issuer)], fields, "Save", Link(link(request, idp), "Cancel"))


def kind_of(kind: str) -> str:
    """`kind`, when it is one the console adds; 400 otherwise."""
    if kind not in KINDS:
        raise ApiError("invalid_request", f"There is no kind {kind[:16]!r}: the kinds are {', '.join(KINDS)}.")
    return kind


def tenant_exists(tenant: str) -> None:
    from authgate.stores.tenants import TenantStore

    if not tenant or TenantStore().get(tenant) is None:
        raise ApiError("not_found", f"There is no tenant {tenant!r}.")


def _apple() -> list[str]:
    """Sign in with Apple's client: its Services ID, and the key authgate signs its own client secret with."""
    return [_field("client_id", "Services ID", hint="The Services ID Apple registered for authgate, e.g. "
                                                    "com.acme.signin.", required=True),
            _field("apple_team_id", "Team ID", hint="Your Apple team id: ten letters and digits.", required=True),
            _field("apple_key_id", "Key ID", hint="The id of the key below: ten letters and digits.", required=True),
            _textarea("apple_private_key", "Private key (.p8)", "The .p8 file Apple issued for Sign in with Apple, "
                      "pasted; sealed before it is stored, never shown.", required=True)]


def _trust(idp: IdentityProvider | None) -> list[str]:
    """The fields create and update share: domains, and what the IdP's word is trusted for."""
    step_up = idp.step_up if idp else "local"
    options = "\n".join(f'<option value="{s}"{" selected" if s == step_up else ""}>{s}</option>' for s in STEP_UPS)
    return [
        _field("domains", "Domains", " ".join(idp.domains) if idp else "",
               hint="Email domains whose people it signs in, separated by spaces (acme.example acme.test)."),
        _check("create_users", "Create a user for a person the tenant does not know", bool(idp and idp.create_users)),
        _check("trust_email", "Link a person to the account with the same verified email",
               bool(idp and idp.trust_email)),
        _field("trust_mfa", "Trust MFA", " ".join(idp.mfa_values) if idp and idp.trust_mfa else "",
               hint="The acr or amr values that count as a second factor, separated by spaces; empty: none."),
        (f'<label for="step_up">Step-up</label>\n<select id="step_up" name="step_up" aria-describedby="step_up-hint">'
        f'\n{options}\n</select>\n<p class="hint" id="step_up-hint">When a second factor is needed and the IdP\'s '
        "is not trusted: authgate's own (local) or ask the IdP (upstream).</p>"),
        _field("claims", "Claim mapping", " ".join(f"{k}={v}" for k, v in idp.claims) if idp else "",
               hint="Which of its claims hold the email, name or groups, e.g. email=upn groups=roles; empty: the "
                    "defaults."),
    ]


def _field(name: str, label: str, value: str = "", *, kind: str = "text", hint: str = "",
           required: bool = False) -> str:
    described = f' aria-describedby="{name}-hint"' if hint else ""
    return (f'<label for="{name}">{e(label)}</label>\n<input id="{name}" name="{name}" type="{kind}" '
            f'value="{e(value)}" autocomplete="off" spellcheck="false"{described}{" required" if required else ""}>'
            + (f'\n<p class="hint" id="{name}-hint">{e(hint)}</p>' if hint else ""))


def _secret(*, required: bool) -> str:
    hint = ("The client secret the IdP issued; sealed before it is stored, never shown."
            if required else "A new client secret the IdP issued; empty: the secret stays as it is.")
    return (f'<label for="client_secret">Client secret</label>\n<input id="client_secret" name="client_secret" '
            f'type="password" autocomplete="new-password" aria-describedby="client_secret-hint"'
            f'{" required" if required else ""}>\n<p class="hint" id="client_secret-hint">{hint}</p>')


def _textarea(name: str, label: str, hint: str, *, required: bool = False) -> str:
    return (f'<label for="{name}">{e(label)}</label>\n<textarea id="{name}" name="{name}" rows="8" '
            f'spellcheck="false" autocomplete="off" aria-describedby="{name}-hint"{" required" if required else ""}>'
            f'</textarea>\n<p class="hint" id="{name}-hint">{e(hint)}</p>')


def _check(name: str, label: str, checked: bool) -> str:
    return (f'<label class="check" for="{name}"><input id="{name}" name="{name}" type="checkbox" value="yes"'
            f'{" checked" if checked else ""}> {e(label)}</label>')


def _form(request: Request, signed: SignedIn, title: str, target: str, hidden: Sequence[tuple[str, str]],
          fields: list[str], button: str, cancel: Link) -> Response:
    csrf = csrf_fields(request, STEP)
    kept = "".join(f'<input type="hidden" name="{e(k)}" value="{e(v)}">\n' for k, v in hidden)
    body = (f'<form method="post" action="{e(url(request, target))}">\n{csrf[0]}\n{kept}' + "\n".join(fields)
            + f'\n<div class="actions"><button type="submit">{e(button)}</button>\n'
              f'<a href="{e(cancel.href)}">{e(cancel.text)}</a></div>\n</form>')
    return page(request, signed, title, body, current="idps", csrf=csrf)


# -- what a posted form gives --

def _text(fields: Mapping[str, str], name: str) -> str | None:
    value = fields.get(name, "").strip()
    return value or None


def _words(fields: Mapping[str, str], name: str) -> list[str]:
    return [w for w in _WORDS.split(fields.get(name, "")) if w]


def created_given(fields: Mapping[str, str], kind: str) -> Given:
    """What the create form of `kind` gives (the SAML metadata fetched or read as the command does)."""
    from authgate.administration import saml_metadata

    saml = None
    if kind == "saml":
        url_given, pasted = _text(fields, "metadata_url"), fields.get("metadata", "").strip()
        saml_metadata.one_source(url_given, bool(pasted))
        saml = saml_metadata.fetched(url_given) if url_given else \
            saml_metadata.given(pasted.encode("utf-8"), PASTED) if pasted else None
    return Given(issuer=_text(fields, "issuer") if kind == "oidc" else None,
                 preset=kind if kind in PRESETS else None, protocol="saml" if kind == "saml" else "oidc",
                 apple_team_id=_text(fields, "apple_team_id"), apple_key_id=_text(fields, "apple_key_id"),
                 idp_id=_text(fields, "idp_id"), label=_text(fields, "label"),
                 domains=_words(fields, "domains") or None, client_id=_text(fields, "client_id"),
                 scopes=_text(fields, "scopes"), create_users=fields.get("create_users") == "yes" or None,
                 trust_email=fields.get("trust_email") == "yes" or None,
                 trust_mfa=_words(fields, "trust_mfa") or None, step_up=_text(fields, "step_up"),
                 claims=_words(fields, "claims") or None, saml=saml)


def updated_given(fields: Mapping[str, str]) -> Given:
    """What the update form gives: every field it shows set as it says (an empty label: as it is)."""
    domains = _words(fields, "domains")
    return Given(label=_text(fields, "label"), domains=domains or None, no_domains=not domains,
                 create_users=fields.get("create_users") == "yes", trust_email=fields.get("trust_email") == "yes",
                 trust_mfa=_words(fields, "trust_mfa"), step_up=_text(fields, "step_up"),
                 claims=_words(fields, "claims") or None)


def secrets(fields: Mapping[str, str]) -> dict[str, str]:
    """The client secret or Apple's private key the form gives (none when the field is empty), checked as the command
    checks its file."""
    from authgate.administration.identity_provider_input import apple_private_key, client_secret

    found = {}
    if fields.get("client_secret"):
        found["client_secret"] = client_secret(fields["client_secret"], "the client secret")
    if fields.get("apple_private_key", "").strip():
        found["apple_private_key"] = apple_private_key(fields["apple_private_key"].strip() + "\n",
                                                       "the Apple private key")
    return found
