"""Subject identifiers (RFC 9493 3) and the subjects of a stream (OpenID Shared Signals Framework 1.0 3, 8.1.3).

A subject is a JSON object whose `format` names how it identifies its principal, with exactly the
members that format defines (RFC 9493 3: every format's members are closed): `iss_sub` (3.2.3),
`email` (3.2.2), `opaque` (3.2.4), `account` (3.2.1), `phone_number` (3.2.5), `did` (3.2.6),
`uri` (3.2.7), `aliases` (3.2.8, never nested), and SSF's `complex` (SSF 1.0 3.3: named simple
subjects, `user`, `session`, `tenant`, ...). `checked` refuses anything else with the JSON pointer
of the member at fault.

A receiver adds or removes subjects by any of these (SSF 1.0 8.1.3.2-3); the transmitter's events
name a user by `iss_sub` (the issuer and the user's user_id, the `sub` of their ID tokens) and
match a stream's subjects by key: the SHA-256 of the subject's canonical JSON, the email's
address lower-cased (how this server compares addresses, docs/users.md; RFC 9493 3.2.2.1 leaves
canonicalisation to the parties). `user_keys` are the keys that name one user: iss_sub, email,
and each as the `user` of a complex subject with no other member (SSF 1.0 8.1.3.1: an undefined
member matches anything, so `{"format": "complex", "user": ...}` names the same user).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# RFC 9493 3.2 and SSF 1.0 3.5: each simple format and its members (all required).
SIMPLE_FORMATS: dict[str, tuple[str, ...]] = {
    "account": ("uri",), "email": ("email",), "iss_sub": ("iss", "sub"), "opaque": ("id",),
    "phone_number": ("phone_number",), "did": ("url",), "uri": ("uri",),
    "jwt_id": ("iss", "jti"), "saml_assertion_id": ("issuer", "assertion_id"),
}
MAX_LENGTH = 1024  # characters of one member's value
MAX_ALIASES = 20
MAX_JSON = 4096  # characters of a whole subject, as stored


class InvalidSubject(ValueError):
    """Not a subject identifier this transmitter understands; `pointer` is the member at fault (RFC 6901)."""

    def __init__(self, detail: str, pointer: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.pointer = pointer


def checked(subject: object, pointer: str = "/subject") -> dict[str, Any]:
    """`subject` if it is a simple, aliases or complex subject identifier (RFC 9493 3, SSF 1.0 3.3); InvalidSubject
    otherwise."""
    value = _checked(subject, pointer, complex_allowed=True, aliases_allowed=True)
    if len(canonical(value)) > MAX_JSON:
        raise InvalidSubject(f"The subject is longer than {MAX_JSON} characters.", pointer)
    return value


def _checked(subject: object, pointer: str, *, complex_allowed: bool, aliases_allowed: bool) -> dict[str, Any]:
    if not isinstance(subject, dict):
        raise InvalidSubject("A subject identifier is a JSON object with a format (RFC 9493 3).", pointer)
    kind = subject.get("format")
    if not isinstance(kind, str):
        raise InvalidSubject("A subject identifier names its format (RFC 9493 3).", f"{pointer}/format")
    if kind == "complex" and complex_allowed:
        parts = {name: value for name, value in subject.items() if name != "format"}
        if not parts:
            raise InvalidSubject("A complex subject has at least one simple subject (SSF 1.0 3.3).", pointer)
        return {"format": kind, **{name: _checked(value, f"{pointer}/{name}", complex_allowed=False,
                                                  aliases_allowed=False) for name, value in parts.items()}}
    if kind == "aliases" and aliases_allowed:
        identifiers = subject.get("identifiers")
        if set(subject) != {"format", "identifiers"} or not isinstance(identifiers, list) \
                or not 0 < len(identifiers) <= MAX_ALIASES:
            raise InvalidSubject(f"An aliases subject has identifiers, a list of 1 to {MAX_ALIASES} subject "
                                 "identifiers, and nothing else (RFC 9493 3.2.8).", f"{pointer}/identifiers")
        return {"format": kind, "identifiers": [
            _checked(item, f"{pointer}/identifiers/{i}", complex_allowed=False, aliases_allowed=False)
            for i, item in enumerate(identifiers)]}
    members = SIMPLE_FORMATS.get(kind)
    if members is None:
        raise InvalidSubject(f"The subject format {kind[:64]!r} is not one this transmitter knows (RFC 9493 3.2).",
                             f"{pointer}/format")
    extra = sorted(set(subject) - {"format", *members})
    if extra:
        raise InvalidSubject(f"The {kind} format has no member {extra[0][:64]!r} (RFC 9493 3).", f"{pointer}/{extra[0]}")
    for name in members:
        value = subject.get(name)
        if not isinstance(value, str) or not value or len(value) > MAX_LENGTH:
            raise InvalidSubject(f"The {kind} format's {name} is a non-empty string of at most {MAX_LENGTH} "
                                 "characters (RFC 9493 3.2).", f"{pointer}/{name}")
    return {"format": kind, **{name: subject[name] for name in members}}


def iss_sub(issuer: str, sub: str) -> dict[str, str]:
    """The Issuer and Subject identifier (RFC 9493 3.2.3) of a user: this issuer and their user_id."""
    return {"format": "iss_sub", "iss": issuer, "sub": sub}


def email(address: str) -> dict[str, str]:
    """The Email identifier (RFC 9493 3.2.2)."""
    return {"format": "email", "email": address}


def opaque(identifier: str) -> dict[str, str]:
    """The Opaque identifier (RFC 9493 3.2.4): a stream's own, in its verification events (SSF 1.0 8.1.4.1)."""
    return {"format": "opaque", "id": identifier}


def canonical(subject: dict[str, Any]) -> str:
    """The subject as compact JSON with sorted members, an email's address lower-cased (the form keys are of)."""
    return json.dumps(_normalised(subject), separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _normalised(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("format") == "email" and isinstance(value.get("email"), str):
            return {**value, "email": value["email"].lower()}
        return {name: _normalised(member) for name, member in value.items()}
    if isinstance(value, list):
        return [_normalised(item) for item in value]
    return value


def key(subject: dict[str, Any]) -> str:
    """The key a stream's subject is stored and matched under: SHA-256 of its canonical JSON, hex."""
    return hashlib.sha256(canonical(subject).encode("utf-8")).hexdigest()


def user_keys(issuer: str, user_id: str, address: str = "") -> tuple[str, ...]:
    """The keys of every subject that names this user (SSF 1.0 8.1.3.1): iss_sub, email, and each alone as a complex
    subject's `user`."""
    identifiers: list[dict[str, Any]] = [iss_sub(issuer, user_id)]
    if address:
        identifiers.append(email(address))
    every = [*identifiers, *({"format": "complex", "user": identifier} for identifier in identifiers)]
    return tuple(key(identifier) for identifier in every)
