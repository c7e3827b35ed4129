"""Who an access token speaks for, once the resource has accepted it (RFC 9068 section 2.2 claims)."""

from __future__ import annotations

from typing import Any, NamedTuple


class Principal(NamedTuple):
    """The validated claims a protected route acts on."""

    subject: str
    client_id: str
    tenant: str
    scopes: frozenset[str]
    jti: str
    grant_id: str | None
    expires_at: int
    # The DPoP key the token is bound to (cnf.jkt, RFC 9449 6.1), or None for a bearer token.
    jkt: str | None = None
    # When it was issued (iat): a user whose sessions were ended after it no longer answers to it.
    issued_at: int = 0
    # How and when the user signed in (RFC 9068 2.2.1 acr, auth_time); "" and None when the token
    # does not say (client_credentials, or a grant made before they were recorded).
    acr: str = ""
    auth_time: int | None = None

    @property
    def on_behalf_of_user(self) -> bool:
        """Whether a person's grant stands behind the token (a code, a refresh family, a password).

        client_credentials tokens carry neither a grant id nor an acr (RFC 9068 2.2: sub is the client).
        """
        return self.grant_id is not None or bool(self.acr)
    # Who acts for the subject (RFC 8693 4.1 `act`, nested per hop), or None when the token was not exchanged.
    act: dict[str, Any] | None = None
    # What the person approved in detail (RFC 9396 9.1 `authorization_details`), or None: a token without them.
    authorization_details: tuple[dict[str, Any], ...] | None = None
    # The person's username (the `username` claim; `subject` is then their user_id); "" for a client's token, and
    # for a person's token issued before `sub` became the user_id (its `subject` is the username).
    username: str = ""

    @property
    def username_of_person(self) -> str:
        """The username of the person the token speaks for, as authgate reads their record: the `username` claim, or
        the `sub` of a token issued before (docs/tokens-and-keys.md, "Subject")."""
        return self.username or self.subject
