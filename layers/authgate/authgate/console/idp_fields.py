"""What the identity provider forms ask for (console.idp_form shows them): what `authgate idps create|update` takes,
under the same names, for each kind of provider and each protocol.

The ID-JAG keys (a URL, or the JWK Set pasted where the command reads a file) and user match on every kind; on a
change, a SAML IdP's metadata again (a URL or pasted), a Sign in with Apple key, an issuer of ID-JAGs only offered for
sign-in (`--protocol oidc` and its client, or `--protocol saml` and its metadata), and a sign-in provider's change of
protocol (`--protocol saml` and its metadata, or `--protocol oidc` and its client) with `--relink-by-email`. The
client secret is a password field (Apple's private key a text area), never filled in again: the update form leaves it
empty, and an empty one keeps the secret as it is.
"""

from __future__ import annotations

from authgate.administration.identity_provider_input import PRESETS as PRESET_SCOPES
from authgate.console.idp_inputs import check, field, secret, select, textarea
from authgate.console.idps import keys
from authgate.identity_providers.model import PRESETS, STEP_UPS, USER_MATCHES, IdentityProvider


def creating(kind: str) -> list[str]:
    """The create form's fields for a provider of `kind` (console.idps KINDS)."""
    issuer = field("issuer", "Issuer", kind="url", required=True,
                   hint="The IdP's issuer identifier, an https URL (the iss of its "
                        + ("ID tokens)." if kind == "oidc" else "ID-JAGs)."))
    if kind == "idjag":
        return [issuer, _create_users(None), *_id_jag(None)]
    first = {"oidc": [issuer], "google": [], "apple": [], "saml": _metadata(None)}[kind]
    client = {"saml": [], "apple": _apple()}.get(kind, [
        field("client_id", "Client ID", hint="The client the IdP registered for authgate.", required=True),
        secret(required=True)])
    default = PRESET_SCOPES[kind].scopes if kind in PRESETS else "openid email profile"
    scopes = [field("scopes", "Scopes", hint=f"What a sign-in asks for; empty: {default}.")] if kind != "saml" else []
    return [*first, *client, *scopes,
            field("label", "Label", hint='The sign-in button\'s text, e.g. "Acme SSO".', required=kind not in PRESETS),
            field("idp_id", "ID", hint="Its short id in the tenant (lower-case letters, digits, -); empty: from "
                                       "the label or the issuer's host."),
            *_trust(None), *_id_jag(None)]


def changeable(idp: IdentityProvider) -> list[str]:
    """The update form's fields for `idp`: what `authgate idps update` changes of a provider of its protocol."""
    if not idp.protocol:
        return [_create_users(idp), *_id_jag(idp), _offered()]
    fields = [field("label", "Label", idp.label, hint="The sign-in button's text; empty: as it is."),
              field("idp_id", "ID", idp.idp_id, hint="Its short id in the tenant, in the URLs registered at the IdP "
                                                     "(changed: change them there too); empty: as it is.")]
    if idp.protocol == "oidc":
        apple = idp.preset == "apple"
        fields += [field("client_id", "Services ID" if apple else "Client ID", idp.client_id,
                         hint="The client the IdP registered for authgate; empty: as it is."),
                   field("scopes", "Scopes", idp.scopes, hint=f"What a sign-in asks for; empty: as it is "
                                                              f"({idp.requested_scopes}).")]
        fields += _apple_key(idp) if apple else [secret(required=False)]
    elif idp.protocol == "saml":
        fields += _metadata(idp)
    return [*fields, *_trust(idp), *_id_jag(idp), _as_saml(idp) if idp.protocol == "oidc" else _as_oidc(idp)]


def _as_saml(idp: IdentityProvider) -> str:
    """An OpenID Provider made a SAML 2.0 IdP (`--protocol saml` and its metadata, whose entityID is its issuer)."""
    fields = "\n".join((
        select("protocol", "Signs people in by", (("oidc", "OpenID Connect"), ("saml", "SAML 2.0")), "oidc",
               f"SAML 2.0: it signs people in by SAML from now on, with the metadata below (its entityID must be "
               f"{idp.issuer})."),
        *_metadata(None), _relink()))
    return f"<fieldset>\n<legend>Protocol</legend>\n{fields}\n</fieldset>"


def _as_oidc(idp: IdentityProvider) -> str:
    """A SAML IdP made an OpenID Provider (`--protocol oidc` and its client; its issuer is its entityID)."""
    fields = "\n".join((
        select("protocol", "Signs people in by", (("saml", "SAML 2.0"), ("oidc", "OpenID Connect")), "saml",
               f"OpenID Connect: it signs people in by OpenID Connect from now on, with the client below (its issuer "
               f"is {idp.issuer}; its metadata is dropped)."),
        field("client_id", "Client ID", hint="OpenID Connect: the client the IdP registered for authgate."),
        secret(required=False, new=False),
        field("scopes", "Scopes", hint="OpenID Connect: what a sign-in asks for; empty: openid email profile."),
        _relink()))
    return f"<fieldset>\n<legend>Protocol</legend>\n{fields}\n</fieldset>"


def _relink() -> str:
    """`--relink-by-email`: the people linked to it linked again by their verified email (needs Trust email)."""
    return check("relink_by_email", "Link people again by their verified email", False,
                 "When people are linked to it: their links, made under the other protocol, are removed and each is "
                 "linked again by their verified email at their next sign-in (needs Link a person to the account with "
                 "the same verified email, above).")


def _offered() -> str:
    """An issuer of ID-JAGs only, offered for sign-in: as an OpenID Provider (`--protocol oidc` and its client) or a
    SAML 2.0 IdP (`--protocol saml` and its metadata)."""
    fields = "\n".join((
        select("protocol", "Offer it for sign-in", (("", "No: ID-JAGs only"), ("oidc", "OpenID Connect"),
                                                     ("saml", "SAML 2.0")), "",
               "OpenID Connect: with its client below; SAML 2.0: with its metadata below (its entityID must be its "
               "issuer)."),
        field("client_id", "Client ID", hint="OpenID Connect: the client the IdP registered for authgate."),
        secret(required=False, new=False),
        field("scopes", "Scopes", hint="OpenID Connect: what a sign-in asks for; empty: openid email profile."),
        *_metadata(None),
        field("label", "Label", hint='The sign-in button\'s text, e.g. "Acme SSO".'),
        field("idp_id", "ID", hint="Its short id in the tenant; empty: from the label or the issuer's host."),
        field("domains", "Domains", hint="Email domains whose people it signs in, separated by spaces.")))
    return f"<fieldset>\n<legend>Sign-in</legend>\n{fields}\n</fieldset>"


def _metadata(idp: IdentityProvider | None) -> list[str]:
    """A SAML IdP's metadata: a URL fetched now, or the document pasted (on a change: read again, or kept)."""
    now = (idp.saml or {}).get("metadata_url") if idp else None
    kept = "" if idp is None else (f" Now fetched from {now}; give it again to fetch it again." if now else
                                   " Now: given as a document.") + " Empty: as it is."
    return [field("metadata_url", "Metadata URL", kind="url",
                  hint="Where the IdP publishes its SAML metadata (https), fetched now; or paste the metadata "
                       "below." + kept),
            textarea("metadata", "Metadata XML", "The IdP's EntityDescriptor, as it offers it for download.")]


def _apple_key(idp: IdentityProvider) -> list[str]:
    """Sign in with Apple's key, changed: its team and key id, and the new key pasted (empty: the key as it is)."""
    return [field("apple_team_id", "Team ID", idp.apple_team_id, hint="Your Apple team id; empty: as it is."),
            field("apple_key_id", "Key ID", idp.apple_key_id, hint="The id of the key below; empty: as it is."),
            textarea("apple_private_key", "Private key (.p8)", "A new .p8 key Apple issued for Sign in with Apple, "
                     "pasted; sealed before it is stored, never shown. Empty: the key stays as it is.")]


def _create_users(idp: IdentityProvider | None) -> str:
    return check("create_users", "Create a user for a person the tenant does not know", bool(idp and idp.create_users))


def _id_jag(idp: IdentityProvider | None) -> list[str]:
    """What its ID-JAGs are checked with: its keys (a URL, or a JWK Set pasted) and how a person is found."""
    kept = f" Now: {keys(idp)}. Empty: as it is." if idp else \
        " Empty: a sign-in provider's own, from its discovery."
    return [
        field("jwks_uri", "Keys URL (jwks_uri)", kind="url",
              hint="Where it publishes the keys its ID-JAGs are signed with (https); or paste them below." + kept),
        textarea("jwks", "Keys (a JWK Set, JSON)", "Its public signing keys, {\"keys\": [...]}, stored with it."),
        select("user_match", "User match", [(m, m) for m in USER_MATCHES], idp.user_match if idp else "sub",
               "An ID-JAG's person: the user whose username is its sub (sub), or whose email is its email claim "
               "(email)."),
    ]


def _apple() -> list[str]:
    """Sign in with Apple's client: its Services ID, and the key authgate signs its own client secret with."""
    return [field("client_id", "Services ID", hint="The Services ID Apple registered for authgate, e.g. "
                                                   "com.acme.signin.", required=True),
            field("apple_team_id", "Team ID", hint="Your Apple team id: ten letters and digits.", required=True),
            field("apple_key_id", "Key ID", hint="The id of the key below: ten letters and digits.", required=True),
            textarea("apple_private_key", "Private key (.p8)", "The .p8 file Apple issued for Sign in with Apple, "
                     "pasted; sealed before it is stored, never shown.", required=True)]


def _trust(idp: IdentityProvider | None) -> list[str]:
    """The fields create and update share: domains, and what the IdP's word is trusted for."""
    return [
        field("domains", "Domains", " ".join(idp.domains) if idp else "",
              hint="Email domains whose people it signs in, separated by spaces (acme.example acme.test)."),
        _create_users(idp),
        check("trust_email", "Link a person to the account with the same verified email",
              bool(idp and idp.trust_email)),
        field("trust_mfa", "Trust MFA", " ".join(idp.mfa_values) if idp and idp.trust_mfa else "",
              hint="The acr or amr values that count as a second factor, separated by spaces; empty: none."),
        select("step_up", "Step-up", [(s, s) for s in STEP_UPS], idp.step_up if idp else "local",
               "When a second factor is needed and the IdP's is not trusted: authgate's own (local) or ask the IdP "
               "(upstream)."),
        field("claims", "Claim mapping", " ".join(f"{k}={v}" for k, v in idp.claims) if idp else "",
              hint="Which of its claims hold the email, name or groups, e.g. email=upn groups=roles; empty: the "
                   "defaults."),
    ]
