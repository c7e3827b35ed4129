"""create, update, delete: what `authgate idps` and the console do to a tenant's identity providers, and how one shows.

identity_provider_input checks each field; saml_metadata reads a SAML IdP's metadata (fetched or given).

Each takes what an operator gave (Given: the values as typed, None where nothing was given; the IdP's keys and SAML
map already read) and the secrets in clear (client_secret, apple_private_key: checked by values, sealed here before
anything is stored, never returned, shown or logged). What does not hold is InvalidInput (values' sentences, and
`complete`'s: what the protocol still needs); what clashes with the tenant's other IdPs, or an issuer it already
trusts, is Refused (so is a change of protocol while people are linked to the IdP, unless they are to be linked
again: identity_provider_protocol); an IdP that is not there is identity_providers.errors.IdentityProviderNotFound.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from authgate.administration import identity_provider_input as values
from authgate.identity_providers.model import (
    PRESETS,
    PROTOCOLS,
    STEP_UPS,
    USER_MATCHES,
    IdentityProvider,
)
from authgate.operators.input import InvalidInput

OIDC_FIELDS = ("client_id", "scopes", "preset", "apple_team_id", "apple_key_id")
SECRET_FIELDS = ("client_secret", "apple_private_key")


class Refused(ValueError):
    """The IdP cannot be written beside what the tenant has: an id or a domain taken, an issuer already trusted."""


class Given(NamedTuple):
    """What an operator gave for an IdP, as typed; None (or False) where nothing was given."""

    issuer: str | None = None
    preset: str | None = None
    protocol: str | None = None
    idp_id: str | None = None
    label: str | None = None
    domains: list[str] | None = None
    no_domains: bool = False
    client_id: str | None = None
    scopes: str | None = None
    apple_team_id: str | None = None
    apple_key_id: str | None = None
    user_match: str | None = None
    create_users: bool | None = None
    trust_email: bool | None = None
    trust_mfa: list[str] | None = None
    step_up: str | None = None
    claims: list[str] | None = None
    # The key source (jwks_uri and jwks), already checked; None: not given.
    keys: Mapping[str, Any] | None = None
    # The SAML map (saml_metadata), already read; None: not given.
    saml: dict[str, Any] | None = None
    # A change of protocol: remove the IdP's links, each person linked again by their verified email
    # (identity_provider_protocol).
    relink_by_email: bool = False


def _choice(value: str | None, flag: str, choices: tuple[str, ...]) -> str | None:
    if value is not None and value not in choices:
        raise InvalidInput(f"{flag} {value[:40]!r} is not one of {', '.join(choices)}")
    return value


def changes(given: Given) -> dict[str, Any]:
    """The record's fields `given` sets, checked."""
    found: dict[str, Any] = dict(given.keys or {})
    if given.saml is not None:
        found["saml"] = given.saml
    chosen = {"protocol": _choice(given.protocol, "--protocol", PROTOCOLS),
              "user_match": _choice(given.user_match, "--user-match", USER_MATCHES),
              "create_users": given.create_users, "trust_email": given.trust_email,
              "step_up": _choice(given.step_up, "--step-up", STEP_UPS)}
    found.update({k: v for k, v in chosen.items() if v is not None})
    checked: dict[str, tuple[Any, Callable[[Any], Any]]] = {
        "idp_id": (given.idp_id, values.idp_id), "label": (given.label, values.label),
        "domains": (given.domains, values.domains), "client_id": (given.client_id, values.client_id),
        "scopes": (given.scopes, values.scopes), "claims": (given.claims, values.claims),
        "apple_team_id": (given.apple_team_id, lambda v: values.apple_id(v, "--apple-team-id")),
        "apple_key_id": (given.apple_key_id, lambda v: values.apple_id(v, "--apple-key-id"))}
    found.update({field: check(value) for field, (value, check) in checked.items() if value is not None})
    if given.trust_mfa is not None:
        mfa = values.mfa_values(given.trust_mfa)
        found.update(trust_mfa=bool(mfa), mfa_values=mfa)
    if given.no_domains:
        found["domains"] = ()
    return found


def _preset(given: Given) -> dict[str, Any]:
    """What `--preset` fills in, and the issuer create acts on."""
    if given.preset is None:
        if given.saml is not None:  # a SAML IdP's issuer is its metadata's entityID (any URI, http or urn too)
            if given.issuer not in (None, given.saml["entity_id"]):
                raise InvalidInput(f"the metadata's entityID is {given.saml['entity_id']!r}: leave --issuer out")
            return {"issuer": given.saml["entity_id"], "protocol": "saml"}
        if given.issuer is None:
            raise InvalidInput("create needs --issuer URL (or --preset google|apple)")
        return {"issuer": values.issuer(given.issuer)}
    _choice(given.preset, "--preset", PRESETS)
    preset = values.PRESETS[given.preset]
    if given.issuer is not None and given.issuer != preset.issuer:
        raise InvalidInput(f"--preset {given.preset} is the issuer {preset.issuer}: leave --issuer out")
    if given.protocol not in (None, "oidc"):
        raise InvalidInput(f"--preset {given.preset} is an OpenID Connect provider: leave --protocol out")
    return {"issuer": preset.issuer, "preset": given.preset, "protocol": "oidc", "label": preset.label,
            "scopes": preset.scopes, "claims": preset.claims, "idp_id": given.preset}


def complete(idp: IdentityProvider, secrets: Mapping[str, str]) -> IdentityProvider:
    """`idp` as it will be stored (sign_in set), once what its protocol needs is there; InvalidInput otherwise."""
    has = {field: bool(secrets.get(field) or getattr(idp, field)) for field in SECRET_FIELDS}
    if idp.saml and (idp.protocol != "saml" or idp.saml["entity_id"] != idp.issuer):
        raise InvalidInput("--metadata-url and --metadata-file are for --protocol saml, with the IdP's own "
                           f"metadata (its entityID is {idp.saml['entity_id']!r}, not {idp.issuer!r})"
                           if idp.protocol == "saml" else
                           "--metadata-url and --metadata-file are for --protocol saml")
    if idp.protocol == "":
        stray = next((f for f in (*OIDC_FIELDS, *SECRET_FIELDS) if getattr(idp, f) or secrets.get(f)), None)
        if stray:
            raise InvalidInput(f"--{stray.replace('_', '-')} is for sign-in: give --protocol oidc too")
        if not idp.jwks_uri and not idp.jwks:
            raise InvalidInput("create needs --jwks-uri URL or --jwks-file FILE (the IdP's signing keys)")
    elif idp.protocol == "oidc":
        _oidc_complete(idp, has)
    elif idp.protocol == "saml" and not idp.saml:
        raise InvalidInput("--protocol saml needs --metadata-url URL or --metadata-file FILE (the IdP's SAML "
                           "metadata)")
    return idp._replace(sign_in=idp.protocol == "oidc" or bool(idp.saml))


def _oidc_complete(idp: IdentityProvider, has: dict[str, bool]) -> None:
    if not idp.client_id:
        raise InvalidInput("--protocol oidc needs --client-id (the client the IdP registered for authgate)")
    apple = idp.preset == "apple"
    if apple and not (idp.apple_team_id and idp.apple_key_id and has["apple_private_key"]):
        raise InvalidInput("--preset apple needs --apple-team-id, --apple-key-id and --apple-private-key-file "
                           "(instead of a client secret)")
    if apple and has["client_secret"]:
        raise InvalidInput("--preset apple signs its own client secret: leave --client-secret-file out")
    if not apple and (idp.apple_team_id or idp.apple_key_id or has["apple_private_key"]):
        raise InvalidInput("--apple-team-id, --apple-key-id and --apple-private-key-file are for --preset apple")
    if not apple and not has["client_secret"]:
        raise InvalidInput("--protocol oidc needs --client-secret-file FILE (the client secret the IdP issued)")


def created(tenant_id: str, given: Given, secrets: Mapping[str, str]) -> IdentityProvider:
    """The record create will store (its secrets not yet sealed); InvalidInput for what does not hold."""
    fields = {**_preset(given), **changes(given)}
    if fields.get("protocol") is None and ("client_id" in fields or secrets):
        fields["protocol"] = "oidc"
    if fields.get("protocol") and "idp_id" not in fields:
        fields["idp_id"] = values.derived_id(fields.get("label", ""), fields["issuer"])
    return complete(IdentityProvider(tenant_id=tenant_id, **fields), secrets)


def create(tenant_id: str, given: Given, secrets: Mapping[str, str]) -> IdentityProvider:
    """Store the IdP `given` describes for `tenant_id`, its secrets sealed; Refused when it clashes or exists."""
    from authgate import clock
    from authgate.identity_providers.errors import IdentityProviderExists
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = created(tenant_id, given, secrets)
    store = IdentityProviderStore()
    _no_clash(idp, store.of_tenant(tenant_id))
    idp = _sealed(idp, secrets)._replace(created_at=clock.seconds())
    try:
        store.create(idp)
    except IdentityProviderExists:
        raise Refused(f"tenant {tenant_id!r} already trusts {idp.issuer!r} (use `authgate idps update`)") from None
    return idp


def update(tenant_id: str, issuer: str, given: Given, secrets: Mapping[str, str]) -> IdentityProvider:
    """Change what `given` names of the IdP `issuer` of `tenant_id` (new secrets sealed); IdentityProviderNotFound,
    InvalidInput or Refused otherwise."""
    from authgate import clock
    from authgate.administration import identity_provider_protocol as protocol
    from authgate.identity_providers.errors import IdentityProviderNotFound
    from authgate.stores.identity_providers import IdentityProviderStore

    store = IdentityProviderStore()
    idp = store.get(tenant_id, issuer)
    if idp is None:
        raise IdentityProviderNotFound(issuer)
    updated = protocol.prepared(idp, idp._replace(**changes(given)), given.relink_by_email, given.saml is not None)
    if updated.protocol and not updated.idp_id:
        updated = updated._replace(idp_id=values.derived_id(updated.label, updated.issuer))
    updated = complete(updated, secrets)
    _no_clash(updated, store.of_tenant(tenant_id))
    linked = protocol.links(idp, updated)
    if linked and not given.relink_by_email:
        raise Refused(protocol.refusal(idp, updated, len(linked)))
    updated = _sealed(updated, secrets)
    since = clock.seconds()
    store.update(updated)
    if linked:
        protocol.unlink(idp, since)
    return updated


def delete(tenant_id: str, issuer: str) -> str:
    """Stop trusting the IdP `issuer` of `tenant_id` (IdentityProviderNotFound when it is not there); what was done."""
    from authgate.stores.identity_providers import IdentityProviderStore

    IdentityProviderStore().delete(tenant_id, issuer)
    return f"tenant {tenant_id} no longer trusts {issuer}: its ID-JAGs and sign-ins are refused from now on"


def _no_clash(idp: IdentityProvider, others: list[IdentityProvider]) -> None:
    """Refused when `idp` cannot sit beside the tenant's other IdPs: its id or a domain taken."""
    for other in others:
        if other.issuer == idp.issuer:
            continue
        if idp.idp_id and other.idp_id == idp.idp_id:
            raise Refused(f"tenant {idp.tenant_id!r} already has an identity provider with id {idp.idp_id!r} "
                          f"({other.issuer}): choose another --id")
        taken = set(idp.domains) & set(other.domains)
        if taken:
            raise Refused(f"domain {min(taken)!r} already sends people to {other.issuer} (one IdP per domain)")


def _sealed(idp: IdentityProvider, secrets: Mapping[str, str]) -> IdentityProvider:
    from authgate.federation import secrets as sealing

    return idp._replace(**{field: sealing.seal(idp.tenant_id, idp.issuer, field, value)  # type: ignore[arg-type]
                           for field, value in secrets.items()})


def view(idp: IdentityProvider, issuer: str) -> dict[str, Any]:
    """The record as shown (never a secret: whether one is set), with what its administrator registers at the IdP
    for authgate at `issuer` (docs/federation.md): the redirect URI; for an OpenID Provider's sign-out the
    post-logout redirect URI and the back-channel logout URI; for a SAML IdP the tenant's SP entity ID, Assertion
    Consumer Service, Single Logout Service and SP metadata URL."""
    from authgate.identity_providers.model import (
        backchannel_logout_uri,
        post_logout_redirect_uri,
        redirect_uri,
    )

    shown: dict[str, Any] = idp.public_view()
    shown["redirect_uri"] = redirect_uri(issuer) if idp.sign_in and idp.protocol == "oidc" and issuer else None
    oidc = idp.sign_in and idp.protocol == "oidc" and bool(issuer)
    shown["post_logout_redirect_uri"] = post_logout_redirect_uri(issuer) if oidc else None
    shown["backchannel_logout_uri"] = backchannel_logout_uri(issuer, idp.tenant_id, idp.idp_id) \
        if oidc and idp.idp_id else None
    if idp.protocol == "saml" and issuer:
        from authgate.federation.saml.sp_metadata import acs_url, slo_url, sp_entity_id

        entity = sp_entity_id(issuer, idp.tenant_id)
        shown.update(sp_entity_id=entity, sp_acs_url=acs_url(issuer, idp.tenant_id),
                     sp_slo_url=slo_url(issuer, idp.tenant_id), sp_metadata_url=f"{entity}/metadata")
    return shown
