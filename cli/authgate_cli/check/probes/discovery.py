"""Discovery: authorization server metadata (RFC 8414) and the published signing keys (RFC 7517)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from authgate_cli.check.expectations import Expect, is_absolute
from authgate_cli.check.probes.base import Context, ScenarioProbe
from authgate_cli.check.transport import Exchange

WELL_KNOWN = "/.well-known/oauth-authorization-server"
JWKS_PATH = "/.well-known/jwks.json"
REQUIRED_METADATA = ("issuer", "token_endpoint", "jwks_uri", "response_types_supported")
# RFC 7518 6.2.2, 6.3.2, 6.4.1 (and RFC 8037 2 for OKP "d"): members only a private or secret key has.
PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")


def _json_object(ctx: Context, exchange: Exchange, rule: str, what: str) -> dict[str, Any] | None:
    """The answer's JSON object, or None after recording why it is not one."""
    response = exchange.response
    if response.status != 200:
        ctx.judge(exchange, Expect(status=(200,), status_rule=rule))
        return None
    if response.media_type not in ("application/json", "application/jwk-set+json"):
        ctx.find(rule, f"the {what} is served as {response.media_type or 'no Content-Type'}, not application/json",
                 exchange)
    try:
        data = json.loads(response.body)
    except ValueError:
        ctx.find(rule, f"the {what} is not JSON", exchange)
        return None
    if not isinstance(data, dict):
        ctx.find(rule, f"the {what} is not a JSON object", exchange)
        return None
    return data


def _inserted_well_known(base_url: str) -> str | None:
    """RFC 8414 3.1: for an issuer with a path, the well-known segment goes before the path."""
    parts = urlsplit(base_url)
    if not parts.path.strip("/"):
        return None
    return urlunsplit((parts.scheme, parts.netloc, WELL_KNOWN + parts.path.rstrip("/"), "", ""))


def fetch_metadata(ctx: Context) -> Exchange:
    """GET the metadata at the well-known URL (RFC 8414 3), then at the 3.1 form for an issuer with a path."""
    exchange = ctx.exchange("GET", ctx.base_url + WELL_KNOWN, [("Accept", "application/json")])
    inserted = _inserted_well_known(ctx.base_url)
    if exchange.response.status == 404 and inserted:
        exchange = ctx.exchange("GET", inserted, [("Accept", "application/json")])
    return exchange


def metadata(ctx: Context) -> None:
    exchange = fetch_metadata(ctx)
    data = _json_object(ctx, exchange, "metadata-document", "metadata")
    if data is None:
        return
    ctx.metadata = data
    missing = [name for name in REQUIRED_METADATA if name not in data]
    if missing:
        ctx.find("metadata-document", f"metadata lacks {', '.join(missing)}", exchange)
    issuer = data.get("issuer")
    if issuer != ctx.base_url:
        ctx.find("metadata-issuer", f"issuer {issuer!r} is not the base URL {ctx.base_url!r}", exchange)
    secure = ctx.base_url.startswith("https:")
    for name, value in sorted(data.items()):
        if not (name.endswith(("_endpoint", "_uri")) or name in ("service_documentation", "op_policy_uri")):
            continue
        if not isinstance(value, str) or not is_absolute(value) or urlsplit(value).scheme not in ("http", "https"):
            ctx.find("metadata-absolute-endpoints", f"{name} {value!r} is not an absolute http(s) URL", exchange)
        elif secure and not value.startswith("https:"):
            ctx.find("metadata-absolute-endpoints", f"{name} {value!r} is not https, though the issuer is", exchange)
    _self_registration(ctx, data, exchange)


def _self_registration(ctx: Context, data: dict[str, Any], exchange: Exchange) -> None:
    """Client ID Metadata Documents advertised honestly (draft-ietf-oauth-client-id-metadata-document 6)."""
    flag = data.get("client_id_metadata_document_supported")
    if flag is None:
        return
    if not isinstance(flag, bool):
        ctx.find("metadata-self-registration", f"client_id_metadata_document_supported {flag!r} is not a boolean",
                 exchange)
        return
    methods = data.get("token_endpoint_auth_methods_supported")
    if flag and not (isinstance(methods, list) and {"none", "private_key_jwt"} & set(methods)):
        ctx.find("metadata-self-registration", "client_id_metadata_document_supported is true, but "
                 "token_endpoint_auth_methods_supported offers neither none nor private_key_jwt", exchange)


def jwks(ctx: Context) -> None:
    exchange = ctx.exchange("GET", ctx.url("@jwks_uri", JWKS_PATH), [("Accept", "application/json")])
    data = _json_object(ctx, exchange, "jwks-document", "JWKS")
    if data is None:
        return
    keys = data.get("keys")
    if not isinstance(keys, list) or not keys:
        ctx.find("jwks-document", "the JWKS has no keys array, or an empty one", exchange)
        return
    ctx.jwks = data
    kids: list[Any] = []
    for index, key in enumerate(keys):
        if not isinstance(key, dict) or not isinstance(key.get("kty"), str):
            ctx.find("jwks-document", f"keys[{index}] has no kty", exchange)
            continue
        private = [m for m in PRIVATE_MEMBERS if m in key]
        if private:
            ctx.find("jwks-public-only", f"keys[{index}] (kid {key.get('kid')!r}) publishes private key "
                                         f"material: {', '.join(private)}", exchange)
        if not isinstance(key.get("kid"), str):
            ctx.find("jwks-document", f"keys[{index}] has no kid", exchange)
        kids.append(key.get("kid"))
    duplicates = sorted({k for k in kids if isinstance(k, str) and kids.count(k) > 1})
    if duplicates:
        ctx.find("jwks-document", f"kid {', '.join(duplicates)} is used by more than one key", exchange)


OPENID_CONFIGURATION = "/.well-known/openid-configuration"
# OpenID Connect Discovery 3: REQUIRED members of the OpenID Provider metadata.
REQUIRED_OPENID = ("issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported",
                   "subject_types_supported", "id_token_signing_alg_values_supported")


def openid_configuration(ctx: Context) -> None:
    """OpenID Connect Discovery 4: the OpenID Provider metadata, when the server is one (404: it is not)."""
    exchange = ctx.exchange("GET", ctx.base_url + OPENID_CONFIGURATION, [("Accept", "application/json")])
    if exchange.response.status == 404:
        return
    data = _json_object(ctx, exchange, "openid-configuration", "OpenID Provider metadata")
    if data is None:
        return
    missing = [name for name in REQUIRED_OPENID if name not in data]
    if missing:
        ctx.find("openid-configuration", f"the OpenID Provider metadata lacks {', '.join(missing)}", exchange)
    if data.get("issuer") != ctx.base_url:
        ctx.find("openid-configuration", f"issuer {data.get('issuer')!r} is not the base URL {ctx.base_url!r}",
                 exchange)
    algs = data.get("id_token_signing_alg_values_supported")
    if isinstance(algs, list) and "RS256" not in algs:
        ctx.find("openid-configuration", "id_token_signing_alg_values_supported does not offer RS256", exchange)
    if ctx.metadata is not None:
        differing = sorted(k for k in set(data) | set(ctx.metadata) if data.get(k) != ctx.metadata.get(k))
        if differing:
            ctx.find("openid-configuration", "the OpenID Provider metadata and the RFC 8414 metadata differ in "
                     + ", ".join(differing[:5]), exchange)


def userinfo(ctx: Context) -> None:
    """The UserInfo endpoint's RFC 6750 challenges (OIDC Core 5.3.3): none without a token, invalid_token for
    garbage. Only when the metadata names one."""
    if not isinstance((ctx.metadata or {}).get("userinfo_endpoint"), str):
        return
    url = ctx.url("@userinfo_endpoint")
    ctx.judge(ctx.exchange("GET", url, [("Accept", "application/json")]),
              Expect(status=(401,), challenge="Bearer", challenge_error="", cite="OIDC Core 5.3.3; RFC 6750 3"))
    ctx.judge(ctx.exchange("GET", url, [("Accept", "application/json"), ("Authorization", "Bearer authgate-check")]),
              Expect(status=(401,), status_rule="bearer-rejects-bad-tokens", challenge="Bearer",
                     challenge_error="invalid_token", cite="OIDC Core 5.3.3; RFC 6750 3.1"))


# The grant types this probe asks a stack about, as RFC 8628 3.4, RFC 7523 2.1 and RFC 8693 2.1 name them: the
# checker reads what a stack serves from its metadata (grant_types_supported), and may check a stack that is not
# this checkout's, so it names them itself rather than from authgate.grant_types.
DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:grant-profile:id-jag"
FORM = ("Content-Type", "application/x-www-form-urlencoded")


def grants(ctx: Context) -> None:
    """The delegation grants as advertised (RFC 8628 4, RFC 8693, draft-ietf-oauth-identity-assertion-authz-grant):
    metadata that agrees with itself, and endpoints that serve what it lists. A grant type the token endpoint
    serves answers a request without client credentials with 401 invalid_client; one it does not serve,
    400 unsupported_grant_type (RFC 6749 5.2), which would make the metadata a false promise."""
    exchange = fetch_metadata(ctx)
    data = _json_object(ctx, exchange, "metadata-grants", "metadata")
    if data is None:
        return
    advertised = data.get("grant_types_supported")
    advertised = advertised if isinstance(advertised, list) else []
    profiles = data.get("authorization_grant_profiles_supported")
    device_endpoint = data.get("device_authorization_endpoint")
    if DEVICE_CODE in advertised and not isinstance(device_endpoint, str):
        ctx.find("metadata-grants", "grant_types_supported lists the device_code grant, but there is no "
                 "device_authorization_endpoint (RFC 8628 4)", exchange)
    if device_endpoint is not None and DEVICE_CODE not in advertised:
        ctx.find("metadata-grants", "device_authorization_endpoint is given, but grant_types_supported does not "
                 f"list {DEVICE_CODE} (RFC 8628 4)", exchange)
    if profiles is not None and not (isinstance(profiles, list) and all(isinstance(p, str) for p in profiles)):
        ctx.find("metadata-grants", "authorization_grant_profiles_supported is not an array of strings", exchange)
    elif profiles and ID_JAG in profiles and JWT_BEARER not in advertised:
        ctx.find("metadata-grants", "authorization_grant_profiles_supported names the ID-JAG profile, but "
                 "grant_types_supported does not list the jwt-bearer grant it is presented with", exchange)
    token = ctx.url("@token_endpoint", "/oauth/token")
    for grant_type in (g for g in (DEVICE_CODE, JWT_BEARER, TOKEN_EXCHANGE) if g in advertised):
        answer = ctx.exchange("POST", token, [FORM, ("Accept", "application/json")],
                              f"grant_type={grant_type}".encode())
        ctx.judge(answer, Expect(status=(401,), status_rule="metadata-grants", codes=("invalid_client",),
                                 code_rule="metadata-grants", challenge="Basic", challenge_rule="oauth-client-challenge",
                                 oauth=True, cite="RFC 8414 2 grant_types_supported; RFC 6749 5.2"))
    if isinstance(device_endpoint, str) and is_absolute(device_endpoint):
        answer = ctx.exchange("POST", device_endpoint, [FORM, ("Accept", "application/json")], b"scope=openid")
        ctx.judge(answer, Expect(status=(401,), status_rule="metadata-grants", codes=("invalid_client",),
                                 code_rule="metadata-grants", challenge="Basic", challenge_rule="oauth-client-challenge",
                                 oauth=True, cite="RFC 8628 3.1, 3.2; RFC 6749 5.2"))


PROBES = (
    ScenarioProbe("discovery.metadata", "authorization server metadata: issuer is the base URL, endpoints absolute",
                  ("metadata-document", "metadata-issuer", "metadata-absolute-endpoints",
                   "metadata-self-registration"), steps=metadata),
    ScenarioProbe("discovery.jwks", "published signing keys: public keys only, each with a unique kid",
                  ("jwks-document", "jwks-public-only"), steps=jwks),
    ScenarioProbe("discovery.openid", "OpenID Provider metadata: the RFC 8414 document, RS256 offered",
                  ("openid-configuration",), steps=openid_configuration),
    ScenarioProbe("userinfo.challenges", "UserInfo without a token: a bare Bearer challenge; a bad one: invalid_token",
                  ("bearer-challenge", "bearer-rejects-bad-tokens", "challenge-on-401"), steps=userinfo),
    ScenarioProbe("discovery.grants", "delegation grants (device code, ID-JAG, token exchange): metadata agrees "
                  "with itself and the token endpoint serves each advertised grant",
                  ("metadata-grants", "oauth-client-challenge"), steps=grants),
)
