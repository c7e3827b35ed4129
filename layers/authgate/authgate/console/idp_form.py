"""GET /console/idp-create?tenant=T&kind=K and /console/idp-update?tenant=T&idp_id=I: the forms that add an identity
provider (an OpenID Provider, Google, Apple, a SAML 2.0 IdP by its metadata, or an issuer trusted for ID-JAGs only) or
change one; what a form gives.

Allowed by `idps.change` in the tenant (operators.roles: owner, admin), judged before anything is read. A form asks for
what `authgate idps create|update` takes, under the same names: the ID-JAG keys (a URL, or the JWK Set pasted where the
command reads a file) and user match on every kind; on a change, a SAML IdP's metadata again (a URL or pasted), a
Sign in with Apple key, an issuer of ID-JAGs only offered for sign-in (`--protocol oidc` and its client, or
`--protocol saml` and its metadata), and an OpenID Provider turned into a SAML IdP (`--protocol saml`; the command
refuses the other way, as a SAML IdP's metadata stays). console.idp_actions posts it. The client secret is a password
field (Apple's private key a text area), never filled in again: the update form leaves it empty, and an empty one
keeps the secret as it is.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from authgate.administration.identity_provider_input import PRESETS as PRESET_SCOPES
from authgate.administration.identity_providers import Given
from authgate.console.idp import found, named
from authgate.console.idps import KINDS, keys, link
from authgate.console.pages import Link, allow, form_page, query_value, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.identity_providers.model import PRESETS, STEP_UPS, USER_MATCHES, IdentityProvider

e = html.escape
# The metadata pasted in the form, as its refusals name it.
PASTED = "the metadata XML"
# The JWK Set pasted in the form, likewise.
PASTED_KEYS = "the JWK Set"
_WORDS = re.compile(r"[\s,]+")


def get_create(request: Request, signed: SignedIn) -> Response:
    tenant, kind = query_value(request, "tenant", 64), query_value(request, "kind", 16)
    allow(signed, "idps.change", tenant or None)
    kind_of(kind)
    tenant_exists(tenant)
    issuer = _field("issuer", "Issuer", kind="url", required=True,
                    hint="The IdP's issuer identifier, an https URL (the iss of its "
                         + ("ID tokens)." if kind == "oidc" else "ID-JAGs)."))
    if kind == "idjag":
        fields = [issuer, _create_users(None), *_id_jag(None)]
    else:
        first = {"oidc": [issuer], "google": [], "apple": [], "saml": _metadata(None)}[kind]
        client = {"saml": [], "apple": _apple()}.get(kind, [
            _field("client_id", "Client ID", hint="The client the IdP registered for authgate.", required=True),
            _secret(required=True)])
        default = PRESET_SCOPES[kind].scopes if kind in PRESETS else "openid email profile"
        scopes = [_field("scopes", "Scopes", hint=f"What a sign-in asks for; empty: {default}.")] \
            if kind != "saml" else []
        fields = [*first, *client, *scopes,
                  _field("label", "Label", hint='The sign-in button\'s text, e.g. "Acme SSO".',
                         required=kind not in PRESETS),
                  _field("idp_id", "ID", hint="Its short id in the tenant (lower-case letters, digits, -); empty: from "
                                              "the label or the issuer's host."),
                  *_trust(None), *_id_jag(None)]
    title = f"{KINDS[kind]} ({tenant})"
    return _form(request, signed, title, "idp-create", [("tenant", tenant), ("kind", kind)], fields, "Add",
                 Link(url(request, "idps", [("tenant", tenant)]), "Cancel"))


def get_update(request: Request, signed: SignedIn) -> Response:
    tenant, idp_id, issuer = named(request)
    allow(signed, "idps.change", tenant)
    idp = found(tenant, idp_id, issuer)
    fields = _changeable(idp)
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


def _changeable(idp: IdentityProvider) -> list[str]:
    """The update form's fields for `idp`: what `authgate idps update` changes of a provider of its protocol."""
    if not idp.protocol:
        return [_create_users(idp), *_id_jag(idp), _offered()]
    fields = [_field("label", "Label", idp.label, hint="The sign-in button's text; empty: as it is."),
              _field("idp_id", "ID", idp.idp_id, hint="Its short id in the tenant, in the URLs registered at the IdP "
                                                      "(changed: change them there too); empty: as it is.")]
    if idp.protocol == "oidc":
        apple = idp.preset == "apple"
        fields += [_field("client_id", "Services ID" if apple else "Client ID", idp.client_id,
                          hint="The client the IdP registered for authgate; empty: as it is."),
                   _field("scopes", "Scopes", idp.scopes, hint=f"What a sign-in asks for; empty: as it is "
                                                                f"({idp.requested_scopes}).")]
        fields += _apple_key(idp) if apple else [_secret(required=False)]
    elif idp.protocol == "saml":
        fields += _metadata(idp)
    changed = [] if idp.protocol == "saml" else [_as_saml(idp)]
    return [*fields, *_trust(idp), *_id_jag(idp), *changed]


def _as_saml(idp: IdentityProvider) -> str:
    """An OpenID Provider made a SAML 2.0 IdP (`--protocol saml` and its metadata, whose entityID is its issuer)."""
    fields = "\n".join((
        _select("protocol", "Signs people in by", (("oidc", "OpenID Connect"), ("saml", "SAML 2.0")), "oidc",
                f"SAML 2.0: it signs people in by SAML from now on, with the metadata below (its entityID must be "
                f"{idp.issuer})."),
        *_metadata(None)))
    return f"<fieldset>\n<legend>Protocol</legend>\n{fields}\n</fieldset>"


def _offered() -> str:
    """An issuer of ID-JAGs only, offered for sign-in: as an OpenID Provider (`--protocol oidc` and its client) or a
    SAML 2.0 IdP (`--protocol saml` and its metadata)."""
    fields = "\n".join((
        _select("protocol", "Offer it for sign-in", (("", "No: ID-JAGs only"), ("oidc", "OpenID Connect"),
                                                      ("saml", "SAML 2.0")), "",
                "OpenID Connect: with its client below; SAML 2.0: with its metadata below (its entityID must be its "
                "issuer)."),
        _field("client_id", "Client ID", hint="OpenID Connect: the client the IdP registered for authgate."),
        _secret(required=False, new=False),
        _field("scopes", "Scopes", hint="OpenID Connect: what a sign-in asks for; empty: openid email profile."),
        *_metadata(None),
        _field("label", "Label", hint='The sign-in button\'s text, e.g. "Acme SSO".'),
        _field("idp_id", "ID", hint="Its short id in the tenant; empty: from the label or the issuer's host."),
        _field("domains", "Domains", hint="Email domains whose people it signs in, separated by spaces.")))
    return f"<fieldset>\n<legend>Sign-in</legend>\n{fields}\n</fieldset>"


def _metadata(idp: IdentityProvider | None) -> list[str]:
    """A SAML IdP's metadata: a URL fetched now, or the document pasted (on a change: read again, or kept)."""
    now = (idp.saml or {}).get("metadata_url") if idp else None
    kept = "" if idp is None else (f" Now fetched from {now}; give it again to fetch it again." if now else
                                   " Now: given as a document.") + " Empty: as it is."
    return [_field("metadata_url", "Metadata URL", kind="url",
                   hint="Where the IdP publishes its SAML metadata (https), fetched now; or paste the metadata "
                        "below." + kept),
            _textarea("metadata", "Metadata XML", "The IdP's EntityDescriptor, as it offers it for download.")]


def _apple_key(idp: IdentityProvider) -> list[str]:
    """Sign in with Apple's key, changed: its team and key id, and the new key pasted (empty: the key as it is)."""
    return [_field("apple_team_id", "Team ID", idp.apple_team_id, hint="Your Apple team id; empty: as it is."),
            _field("apple_key_id", "Key ID", idp.apple_key_id, hint="The id of the key below; empty: as it is."),
            _textarea("apple_private_key", "Private key (.p8)", "A new .p8 key Apple issued for Sign in with Apple, "
                      "pasted; sealed before it is stored, never shown. Empty: the key stays as it is.")]


def _create_users(idp: IdentityProvider | None) -> str:
    return _check("create_users", "Create a user for a person the tenant does not know", bool(idp and idp.create_users))


def _id_jag(idp: IdentityProvider | None) -> list[str]:
    """What its ID-JAGs are checked with: its keys (a URL, or a JWK Set pasted) and how a person is found."""
    kept = f" Now: {keys(idp)}. Empty: as it is." if idp else \
        " Empty: a sign-in provider's own, from its discovery."
    return [
        _field("jwks_uri", "Keys URL (jwks_uri)", kind="url",
               hint="Where it publishes the keys its ID-JAGs are signed with (https); or paste them below." + kept),
        _textarea("jwks", "Keys (a JWK Set, JSON)", "Its public signing keys, {\"keys\": [...]}, stored with it."),
        _select("user_match", "User match", [(m, m) for m in USER_MATCHES], idp.user_match if idp else "sub",
                "An ID-JAG's person: the user whose username is its sub (sub), or whose email is its email claim "
                "(email)."),
    ]


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
    return [
        _field("domains", "Domains", " ".join(idp.domains) if idp else "",
               hint="Email domains whose people it signs in, separated by spaces (acme.example acme.test)."),
        _create_users(idp),
        _check("trust_email", "Link a person to the account with the same verified email",
               bool(idp and idp.trust_email)),
        _field("trust_mfa", "Trust MFA", " ".join(idp.mfa_values) if idp and idp.trust_mfa else "",
               hint="The acr or amr values that count as a second factor, separated by spaces; empty: none."),
        _select("step_up", "Step-up", [(s, s) for s in STEP_UPS], idp.step_up if idp else "local",
                "When a second factor is needed and the IdP's is not trusted: authgate's own (local) or ask the IdP "
                "(upstream)."),
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


def _select(name: str, label: str, options: Sequence[tuple[str, str]], chosen: str, hint: str) -> str:
    shown = "\n".join(f'<option value="{e(value)}"{" selected" if value == chosen else ""}>{e(text)}</option>'
                      for value, text in options)
    return (f'<label for="{name}">{e(label)}</label>\n<select id="{name}" name="{name}" aria-describedby="{name}-hint">'
            f'\n{shown}\n</select>\n<p class="hint" id="{name}-hint">{e(hint)}</p>')


def _secret(*, required: bool, new: bool = True) -> str:
    hint = ("The client secret the IdP issued; sealed before it is stored, never shown."
            if required or not new else "A new client secret the IdP issued; empty: the secret stays as it is.")
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
    return form_page(request, signed, title=title, target=target, inner="\n".join(fields) + "\n", label=button,
                     cancel=cancel, current="idps", hidden=hidden)


# -- what a posted form gives --

def _text(fields: Mapping[str, str], name: str) -> str | None:
    value = fields.get(name, "").strip()
    return value or None


def _words(fields: Mapping[str, str], name: str) -> list[str]:
    return [w for w in _WORDS.split(fields.get(name, "")) if w]


def _saml(fields: Mapping[str, str]) -> dict[str, Any] | None:
    """The `saml` map of the metadata URL (fetched now) or the pasted metadata; None when neither is given."""
    from authgate.administration import saml_metadata

    url_given, pasted = _text(fields, "metadata_url"), fields.get("metadata", "").strip()
    saml_metadata.one_source(url_given, bool(pasted))
    return saml_metadata.fetched(url_given) if url_given else \
        saml_metadata.given(pasted.encode("utf-8"), PASTED) if pasted else None


def _keys(fields: Mapping[str, str]) -> dict[str, Any] | None:
    """The key source given: the keys URL, or the JWK Set pasted (checked as the command checks its file)."""
    from authgate.administration.identity_provider_input import keys as key_source

    return key_source(_text(fields, "jwks_uri"), fields.get("jwks", "").strip() or None, PASTED_KEYS)


def created_given(fields: Mapping[str, str], kind: str) -> Given:
    """What the create form of `kind` gives (the SAML metadata fetched or read as the command does)."""
    return Given(issuer=_text(fields, "issuer") if kind in ("oidc", "idjag") else None,
                 preset=kind if kind in PRESETS else None,
                 protocol={"saml": "saml", "idjag": None}.get(kind, "oidc"),
                 apple_team_id=_text(fields, "apple_team_id"), apple_key_id=_text(fields, "apple_key_id"),
                 idp_id=_text(fields, "idp_id"), label=_text(fields, "label"),
                 domains=_words(fields, "domains") or None, client_id=_text(fields, "client_id"),
                 scopes=_text(fields, "scopes"), create_users=fields.get("create_users") == "yes" or None,
                 trust_email=fields.get("trust_email") == "yes" or None,
                 trust_mfa=_words(fields, "trust_mfa") or None, step_up=_text(fields, "step_up"),
                 claims=_words(fields, "claims") or None, user_match=_text(fields, "user_match"),
                 keys=_keys(fields), saml=_saml(fields) if kind == "saml" else None)


def updated_given(fields: Mapping[str, str], idp: IdentityProvider) -> Given:
    """What the update form of `idp` gives: every field it shows set as it says (an empty text field, the keys, the
    metadata: as they are); the protocol when it is another (`--protocol`), whatever the form showed, for the
    command's checks to judge."""
    protocol = _text(fields, "protocol")
    changed = Given(create_users=fields.get("create_users") == "yes", user_match=_text(fields, "user_match"),
                    keys=_keys(fields), protocol=None if protocol == idp.protocol else protocol, saml=_saml(fields))
    if not idp.protocol:
        return changed._replace(client_id=_text(fields, "client_id"), scopes=_text(fields, "scopes"),
                                label=_text(fields, "label"), idp_id=_text(fields, "idp_id"),
                                domains=_words(fields, "domains") or None)
    domains = _words(fields, "domains")
    oidc, apple = idp.protocol == "oidc", idp.preset == "apple"
    return changed._replace(
        label=_text(fields, "label"), idp_id=_text(fields, "idp_id"), domains=domains or None,
        no_domains=not domains,
        trust_email=fields.get("trust_email") == "yes", trust_mfa=_words(fields, "trust_mfa"),
        step_up=_text(fields, "step_up"), claims=_words(fields, "claims") or None,
        client_id=_text(fields, "client_id") if oidc else None, scopes=_text(fields, "scopes") if oidc else None,
        apple_team_id=_text(fields, "apple_team_id") if apple else None,
        apple_key_id=_text(fields, "apple_key_id") if apple else None)


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
