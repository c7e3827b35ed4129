"""authgate.federation.secrets: an IdP's secrets sealed under the stack's sealing key, bound to (tenant, issuer, field)."""

from __future__ import annotations

import pytest

from authgate import caches
from authgate.federation import secrets
from authgate.identity_providers.model import IdentityProvider
from authgate.sealing import SecretUnreadable

ISSUER = "https://sso.acme.example"


@pytest.fixture(autouse=True)
def sealing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)
    caches.reset()


def test_a_sealed_client_secret_opens_on_its_own_record_only() -> None:
    sealed = secrets.seal("demo", ISSUER, "client_secret", "upstream-client-secret")
    assert sealed.startswith("v1.") and "upstream-client-secret" not in sealed
    idp = IdentityProvider("demo", ISSUER, client_secret=sealed)
    assert secrets.unseal(idp, "client_secret") == "upstream-client-secret"
    assert secrets.unseal(IdentityProvider("demo", ISSUER), "client_secret") == ""
    for moved in (idp._replace(tenant_id="acme"), idp._replace(issuer="https://other.example"),
                  IdentityProvider("demo", ISSUER, apple_private_key=sealed)):
        field = "apple_private_key" if moved.apple_private_key else "client_secret"
        with pytest.raises(SecretUnreadable):
            secrets.unseal(moved, field)  # type: ignore[arg-type]


def test_another_sealing_key_cannot_open_it(monkeypatch: pytest.MonkeyPatch) -> None:
    idp = IdentityProvider("demo", ISSUER, client_secret=secrets.seal("demo", ISSUER, "client_secret", "s" * 20))
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "z" * 48)
    caches.reset()
    with pytest.raises(SecretUnreadable):
        secrets.unseal(idp, "client_secret")


def test_a_sessions_upstream_id_token_opens_for_its_own_upstream_sign_in_only() -> None:
    from authgate.sessions.model import Upstream

    sealed = secrets.seal_id_token("demo", ISSUER, "00u1", "eyJ.id.token")
    assert sealed.startswith("v1.") and "eyJ" not in sealed
    upstream = Upstream(ISSUER, "acme", "oidc", "00u1", sid="s-1", id_token=sealed)
    assert secrets.id_token_of("demo", upstream) == "eyJ.id.token"
    assert secrets.seal_id_token("demo", ISSUER, "00u1", "") == ""
    assert secrets.id_token_of("demo", upstream._replace(id_token="")) == ""
    for tenant, moved in (("acme", upstream), ("demo", upstream._replace(subject="00u2")),
                          ("demo", upstream._replace(issuer="https://other.example"))):
        with pytest.raises(SecretUnreadable):
            secrets.id_token_of(tenant, moved)
    # Not an IdP's client secret, nor the reverse: each kind has its own key.
    with pytest.raises(SecretUnreadable):
        secrets.id_token_of("demo", upstream._replace(id_token=secrets.seal("demo", ISSUER, "client_secret", "x")))
