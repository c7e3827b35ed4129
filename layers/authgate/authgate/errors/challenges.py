"""WWW-Authenticate challenges, built here and nowhere else (RFC 9110 11.6.1 syntax).

Bearer (RFC 6750 3) on protected API routes, realm "api"; Basic (RFC 7617) for client
authentication at the OAuth endpoints, realm "oauth" (RFC 6749 5.2); DPoP (RFC 9449 7.1) beside
Bearer where a resource accepts both (`resource`), each with `resource_metadata` (RFC 9728 5.1)
naming the resource's metadata document; a step-up challenge (RFC 9470 3) adds `acr_values` and
`max_age` to the error insufficient_user_authentication. Auth-param values are quoted-strings (RFC 9110 5.6.4):
`\\` and `"` are escaped with a backslash and control characters are never emitted, so no
value can split or fold a header.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate.errors.description import oauth_description

API_REALM = "api"
OAUTH_REALM = "oauth"


def quoted_string(value: str) -> str:
    """RFC 9110 5.6.4 quoted-string: escape `\\` and `"`, drop control characters and non-ASCII."""
    cleaned = "".join(ch if " " <= ch <= "~" else " " for ch in value)
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _scope(scope: str) -> str:
    # RFC 6750 3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), space separated.
    tokens = ["".join(ch for ch in token if "!" <= ch <= "~" and ch not in '"\\') for token in scope.split()]
    return " ".join(t for t in tokens if t)


class StepUp(NamedTuple):
    """What a step-up challenge asks for (RFC 9470 3): acr values in order of preference, a maximum age."""

    acr_values: tuple[str, ...]
    max_age: int | None = None


def _params(error: str | None, description: str | None, scope: str | None,
            resource_metadata: str | None, step_up: StepUp | None = None) -> list[str]:
    params = []
    if error:
        params.append(f"error={quoted_string(error)}")
        if description:
            params.append(f"error_description={quoted_string(oauth_description(description))}")
    if step_up is not None:
        # RFC 9470 3: both are quoted as the RFC's examples write them (RFC 9110 11.2: token and
        # quoted-string forms are equivalent).
        if step_up.acr_values:
            params.append(f"acr_values={quoted_string(' '.join(step_up.acr_values))}")
        if step_up.max_age is not None:
            params.append(f"max_age={quoted_string(str(step_up.max_age))}")
    if scope:
        params.append(f"scope={quoted_string(_scope(scope))}")
    if resource_metadata:
        params.append(f"resource_metadata={quoted_string(resource_metadata)}")
    return params


def bearer(realm: str = API_REALM, error: str | None = None, description: str | None = None,
           scope: str | None = None, resource_metadata: str | None = None, step_up: StepUp | None = None) -> str:
    """A Bearer challenge (RFC 6750 3); with no `error` when the request had no credentials (3.1)."""
    return "Bearer " + ", ".join([f"realm={quoted_string(realm)}",
                                  *_params(error, description, scope, resource_metadata, step_up)])


def dpop(algs: tuple[str, ...], error: str | None = None, description: str | None = None,
         scope: str | None = None, resource_metadata: str | None = None, step_up: StepUp | None = None) -> str:
    """A DPoP challenge (RFC 9449 7.1): `algs` the proof algorithms accepted, then the Bearer-like params."""
    return "DPoP " + ", ".join([f"algs={quoted_string(' '.join(algs))}",
                                *_params(error, description, scope, resource_metadata, step_up)])


def resource(scheme: str | None, algs: tuple[str, ...], error: str | None = None, description: str | None = None,
             scope: str | None = None, resource_metadata: str | None = None, step_up: StepUp | None = None) -> str:
    """Both challenges of a resource accepting Bearer and DPoP (RFC 9449 7.1, RFC 9110 11.6.1).

    The error goes on the challenge of the scheme the request used (`scheme` "dpop", else Bearer),
    which comes first; the other challenge only says the scheme is accepted.
    """
    if scheme == "dpop":
        return ", ".join([dpop(algs, error, description, scope, resource_metadata, step_up),
                          bearer(resource_metadata=resource_metadata)])
    return ", ".join([bearer(error=error, description=description, scope=scope,
                             resource_metadata=resource_metadata, step_up=step_up),
                      dpop(algs, resource_metadata=resource_metadata)])


def basic(realm: str = OAUTH_REALM) -> str:
    """A Basic challenge (RFC 7617 2) for client authentication at the token endpoint."""
    return f"Basic realm={quoted_string(realm)}"
