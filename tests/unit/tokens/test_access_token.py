"""tokens.access_token (RFC 9068 2): the header and claims of an issued token, verified with the published key."""

from __future__ import annotations

import jwt

from authgate.clock import ManualClock
from authgate.tokens.access_token import issue_access_token
from authgate.tokens.jwk_set import jwk_set
from tests.demo import ISSUER


def verified(token: str) -> tuple[dict[str, object], dict[str, object]]:
    """(header, claims), the signature checked by PyJWT with the key the JWKS publishes."""
    header = jwt.get_unverified_header(token)
    (published,) = [k for k in jwk_set()["keys"] if k["kid"] == header["kid"]]
    key = jwt.PyJWK(published).key
    claims = jwt.decode(token, key, algorithms=[header["alg"]], audience=ISSUER + "/charges", issuer=ISSUER,
                        options={"verify_iat": False, "verify_exp": False})
    return header, claims


def test_a_token_has_the_rfc_9068_header_and_claims(keys: None, clock: ManualClock) -> None:
    issued = issue_access_token(issuer=ISSUER, subject="alice", client_id="web", tenant="demo", scope="charges:read")
    header, claims = verified(issued.token)
    assert (header["typ"], header["alg"]) == ("at+jwt", "RS256")
    now = int(clock())
    assert claims == {"iss": ISSUER, "sub": "alice", "aud": ISSUER + "/charges", "exp": now + 900, "iat": now,
                      "jti": issued.jti, "client_id": "web", "scope": "charges:read", "tenant": "demo"}
    assert (issued.expires_in, issued.scope, len(issued.jti)) == (900, "charges:read", 24)


def test_grant_id_audience_and_dpop_binding_when_given(keys: None) -> None:
    issued = issue_access_token(issuer=ISSUER, subject="alice", client_id="web", tenant="demo", scope="",
                                audience=ISSUER + "/charges", grant_id="g1", jkt="thumb")
    _, claims = verified(issued.token)
    assert (claims["grant_id"], claims["cnf"], claims["aud"]) == ("g1", {"jkt": "thumb"}, ISSUER + "/charges")


def test_every_token_has_its_own_jti(keys: None) -> None:
    jtis = {issue_access_token(issuer=ISSUER, subject="s", client_id="c", tenant="t", scope="").jti for _ in range(20)}
    assert len(jtis) == 20
