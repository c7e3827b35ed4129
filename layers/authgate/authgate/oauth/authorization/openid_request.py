"""The OpenID Connect parameters of an authorization request (OIDC Core 3.1.2.1, 3.1.2.6, 5.5, 6).

Read only when the request asks for `openid` (without it the request is plain OAuth and these
parameters mean nothing, OIDC Core 3.1.2.1). nonce is bounded and required of a public client
(it is what binds the ID token to the browser that started the flow); prompt is none, login or
consent, and none alone; max_age a non-negative integer; claims a JSON object whose essential
`acr` must be one this server performs (5.5.1.1). ui_locales, claims_locales, display,
login_hint and acr_values are hints: accepted, never refused (acr_values asks for a second
factor: interaction.second_factor). max_age and acr_values are read for a plain OAuth
request as well (RFC 9470 4). id_token_hint must be an ID token
this server issued (expired or not); the person it names is who the request is about, so a session
of anyone else is not used for it (3.1.2.1). A request object (`request`,
OIDC Core 6.1) and `registration` are not supported, with their own errors (3.1.2.6); a
`request_uri` is only ever a pushed request's (RFC 9126), read before this.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from authgate.assurance import ACR_VALUES
from authgate.errors import ApiError

# OIDC Core 3.1.2.1: the prompt values this server acts on (select_account: one account per browser).
PROMPT_VALUES = ("none", "login", "consent")
MAX_ACR_VALUES = 8
MAX_NONCE = 512
MAX_HINT = 256
MAX_CLAIMS = 4096


class OpenIDParameters(NamedTuple):
    """What an openid request asks beyond OAuth's: how the ID token and the sign-in must be."""

    nonce: str | None = None
    # Space-separated prompt values ("" when none was sent).
    prompt: str = ""
    max_age: int | None = None
    login_hint: str | None = None
    # The `sub` of the id_token_hint: the person the client expects to be signed in (OIDC Core 3.1.2.1).
    hinted_sub: str | None = None
    # acr_values this server performs, in the request's order of preference (voluntary, OIDC Core 3.1.2.1).
    acr_values: tuple[str, ...] = ()
    # The essential acr claim's values this server performs (OIDC Core 5.5.1.1): one of them must be met.
    essential_acr: tuple[str, ...] = ()


def refuse_unsupported(params: Mapping[str, Sequence[str]]) -> None:
    """A request object or a registration parameter: their own OIDC errors (OIDC Core 3.1.2.6)."""
    if any(v for v in params.get("request") or []):
        raise ApiError("request_not_supported", "Request objects (the request parameter) are not supported: send "
                                                "the parameters themselves, or push them to the PAR endpoint.")
    if any(v for v in params.get("registration") or []):
        raise ApiError("registration_not_supported", "The registration parameter is not supported: register the "
                                                     "client before it sends authorization requests.")


def read(params: Mapping[str, Sequence[str]], *, public_client: bool, issuer: str = "") -> OpenIDParameters:
    """The OpenID parameters of an openid request, each checked (invalid_request, OIDC Core 3.1.2.2)."""
    nonce = _single(params, "nonce")
    if nonce is None and public_client:
        raise ApiError("invalid_request", "A public client must send a nonce with scope openid: it binds the ID "
                                          "token to this sign-in (OpenID Connect Core 3.1.2.1, 15.5.2).")
    if nonce is not None and len(nonce) > MAX_NONCE:
        raise ApiError("invalid_request", f"The nonce is longer than {MAX_NONCE} characters.")
    prompts = _prompts(_single(params, "prompt"))
    essential = _claims(_single(params, "claims"))
    login_hint = _single(params, "login_hint")
    return OpenIDParameters(nonce=nonce, prompt=" ".join(prompts), **assurance_parameters(params),
                            login_hint=login_hint[:MAX_HINT] if login_hint else None,
                            hinted_sub=_hinted_sub(_single(params, "id_token_hint"), issuer), essential_acr=essential)


def assurance_parameters(params: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """max_age and acr_values, which a plain OAuth request may send too (RFC 9470 4, OIDC Core 3.1.2.1).

    acr_values is voluntary: values this server does not perform are ignored, never refused."""
    raw = _single(params, "acr_values") or ""
    acr_values = tuple(v for v in dict.fromkeys(raw.split()[:MAX_ACR_VALUES]) if v in ACR_VALUES)
    return {"max_age": _max_age(_single(params, "max_age")), "acr_values": acr_values}


def _hinted_sub(hint: str | None, issuer: str) -> str | None:
    """The sub of an id_token_hint this issuer signed (its expiry does not matter: it is a hint about a past
    sign-in, OIDC Core 3.1.2.1); any other token is invalid_request."""
    if hint is None:
        return None
    from authgate.oauth.token.id_token_hint import verified_hint

    claims = verified_hint(hint, issuer)
    if claims is None:
        raise ApiError("invalid_request", "The id_token_hint is not an ID token this server issued.")
    return str(claims["sub"])


def _single(params: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = [v for v in params.get(name) or [] if v != ""]
    return values[0] if values else None


def _prompts(raw: str | None) -> tuple[str, ...]:
    """OIDC Core 3.1.2.1: space-delimited; `none` with any other value is invalid_request."""
    if raw is None:
        return ()
    prompts = tuple(dict.fromkeys(raw.split()))
    unknown = [p for p in prompts if p not in PROMPT_VALUES]
    if unknown:
        raise ApiError("invalid_request", f"The prompt value {unknown[0][:32]!r} is not supported; use "
                                          f"{', '.join(PROMPT_VALUES)}.")
    if "none" in prompts and len(prompts) > 1:
        raise ApiError("invalid_request", "prompt=none cannot be combined with another prompt value "
                                          "(OpenID Connect Core 3.1.2.1).")
    return prompts


def _max_age(raw: str | None) -> int | None:
    """OIDC Core 3.1.2.1: the allowable seconds since the user last actively signed in."""
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 10:
        raise ApiError("invalid_request", "max_age must be a non-negative integer number of seconds.")
    return int(raw)


def _claims(raw: str | None) -> tuple[str, ...]:
    """OIDC Core 5.5: a JSON object of userinfo / id_token requests; an essential acr (5.5.1.1) must be ours:
    its values this server performs (none: the claim is not essential)."""
    if raw is None:
        return ()
    try:
        claims = json.loads(raw) if len(raw) <= MAX_CLAIMS else None
    except ValueError:
        claims = None
    if not isinstance(claims, dict) or any(not isinstance(claims.get(m, {}), dict) for m in ("userinfo", "id_token")):
        raise ApiError("invalid_request", "The claims parameter must be a JSON object whose userinfo and id_token "
                                          "members are objects (OpenID Connect Core 5.5).")
    acr: Any = claims.get("id_token", {}).get("acr")
    if not isinstance(acr, dict) or acr.get("essential") is not True:
        return ()
    wanted = acr["values"] if isinstance(acr.get("values"), list) else [acr["value"]] if "value" in acr else None
    if wanted is None:
        return ()
    performed = tuple(v for v in ACR_VALUES if v in wanted)
    if not performed:
        raise ApiError("unmet_authentication_requirements",
                       f"None of the essential acr values can be met here; this server performs {', '.join(ACR_VALUES)}.")
    return performed
