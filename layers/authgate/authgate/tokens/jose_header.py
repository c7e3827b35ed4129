"""The JOSE header checks of a JWS a client signs (RFC 7515 4.1): its type, its algorithm, no extension.

Client assertions (RFC 7523 2.2; oauth.token.client_assertion) and DPoP proofs (RFC 9449 4.3
steps 4-5; tokens.dpop) ask their header the same questions, in this order: `typ`, when the
profile names one (RFC 7515 4.1.9: compared case-insensitively, "application/" may be left out);
`alg`, from the caller's allow-list of asymmetric algorithms (never `none`, never a MAC: RFC 8725
2.1, 3.1); and no `crit` (RFC 7515 4.1.11: a JWS naming an extension this server does not
understand is refused). Each caller words the refusal for its own reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Member = Literal["typ", "alg", "crit"]


class HeaderRejected(ValueError):
    """The header fails the check of `member`."""

    def __init__(self, member: Member) -> None:
        super().__init__(f"JOSE header: {member}")
        self.member: Member = member


def typ_is(header: Mapping[str, Any], media_type: str) -> bool:
    """Whether `typ` names `media_type` (given without "application/", lower case; RFC 7515 4.1.9)."""
    typ = header.get("typ")
    return isinstance(typ, str) and typ.lower().removeprefix("application/") == media_type


def checked_alg(header: Mapping[str, Any], algorithms: tuple[str, ...], *, typ: str | None = None) -> str:
    """The header's `alg`, once `typ` (when given), `alg` and `crit` pass; HeaderRejected naming the first that fails."""
    if typ is not None and not typ_is(header, typ):
        raise HeaderRejected("typ")
    alg = header.get("alg")
    if not isinstance(alg, str) or alg not in algorithms:
        raise HeaderRejected("alg")
    if "crit" in header:
        raise HeaderRejected("crit")
    return alg
