"""What a posted identity provider form gives (console.idp_actions posts it): the command's Given and secrets, read as
`authgate idps create|update` reads its flags and files.

The metadata is fetched or read as the command's --metadata-url and --metadata-file are, the pasted JWK Set checked
as its --jwks-file, the client secret and Apple's key as their files; each refusal names the form's field where the
command names a file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from authgate.administration.identity_providers import Given
from authgate.identity_providers.model import PRESETS, IdentityProvider

# The metadata pasted in the form, as its refusals name it.
PASTED = "the metadata XML"
# The JWK Set pasted in the form, likewise.
PASTED_KEYS = "the JWK Set"
_WORDS = re.compile(r"[\s,]+")


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
    command's checks to judge; the client of an OpenID Provider, or of a SAML IdP made one."""
    protocol = _text(fields, "protocol")
    changed = Given(create_users=fields.get("create_users") == "yes", user_match=_text(fields, "user_match"),
                    keys=_keys(fields), protocol=None if protocol == idp.protocol else protocol, saml=_saml(fields))
    if not idp.protocol:
        return changed._replace(client_id=_text(fields, "client_id"), scopes=_text(fields, "scopes"),
                                label=_text(fields, "label"), idp_id=_text(fields, "idp_id"),
                                domains=_words(fields, "domains") or None)
    domains = _words(fields, "domains")
    oidc, apple = "oidc" in (idp.protocol, protocol), idp.preset == "apple"
    return changed._replace(
        label=_text(fields, "label"), idp_id=_text(fields, "idp_id"), domains=domains or None,
        no_domains=not domains,
        trust_email=fields.get("trust_email") == "yes", trust_mfa=_words(fields, "trust_mfa"),
        step_up=_text(fields, "step_up"), claims=_words(fields, "claims") or None,
        client_id=_text(fields, "client_id") if oidc else None, scopes=_text(fields, "scopes") if oidc else None,
        apple_team_id=_text(fields, "apple_team_id") if apple else None,
        apple_key_id=_text(fields, "apple_key_id") if apple else None,
        relink_by_email=fields.get("relink_by_email") == "yes")


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
