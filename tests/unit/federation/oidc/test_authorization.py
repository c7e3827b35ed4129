"""federation.oidc.authorization: the authorization request (Core 3.1.2.1) with PKCE S256 (RFC 7636)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from authgate.federation.oidc.authorization import request_url, s256
from authgate.federation.oidc.discovery import Provider
from authgate.identity_providers.model import IdentityProvider

PROVIDER = Provider("https://idp.example", "https://idp.example/authorize", "https://idp.example/token",
                    "https://idp.example/jwks")
IDP = IdentityProvider("demo", "https://idp.example", protocol="oidc", client_id="authgate")


def query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def test_the_code_flow_with_state_nonce_and_pkce() -> None:
    url = request_url(IDP, PROVIDER, redirect_uri="https://as.example/oauth/federation/callback", state="st",
                      nonce="nn", code_verifier="dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    assert url.startswith("https://idp.example/authorize?")
    assert query(url) == {"response_type": "code", "client_id": "authgate",
                          "redirect_uri": "https://as.example/oauth/federation/callback",
                          "scope": "openid email profile", "state": "st", "nonce": "nn",
                          # RFC 7636 Appendix B's example.
                          "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                          "code_challenge_method": "S256"}


def test_what_the_person_s_request_asked_is_passed_on() -> None:
    url = request_url(IDP._replace(scopes="openid email"), PROVIDER, redirect_uri="r", state="s", nonce="n",
                      code_verifier="v" * 43, max_age=0, prompt="login", acr_values="mfa", login_hint="carol@acme.example")
    assert {k: query(url)[k] for k in ("scope", "max_age", "prompt", "acr_values", "login_hint")} == {
        "scope": "openid email", "max_age": "0", "prompt": "login", "acr_values": "mfa",
        "login_hint": "carol@acme.example"}
    assert "prompt" not in query(request_url(IDP, PROVIDER, redirect_uri="r", state="s", nonce="n",
                                             code_verifier="v" * 43, prompt="bogus"))


def test_apple_answers_by_form_post_and_google_is_told_the_workspace_domain() -> None:
    apple = query(request_url(IDP._replace(preset="apple"), PROVIDER, redirect_uri="r", state="s", nonce="n",
                              code_verifier="v" * 43))
    assert apple["response_mode"] == "form_post"
    google = IDP._replace(preset="google", domains=("acme.example",))
    assert query(request_url(google, PROVIDER, redirect_uri="r", state="s", nonce="n", code_verifier="v" * 43))[
        "hd"] == "acme.example"
    two = google._replace(domains=("acme.example", "acme.test"))
    assert "hd" not in query(request_url(two, PROVIDER, redirect_uri="r", state="s", nonce="n", code_verifier="v" * 43))


def test_an_endpoint_with_a_query_keeps_it() -> None:
    url = request_url(IDP, PROVIDER._replace(authorization_endpoint="https://idp.example/authorize?tenant=acme"),
                      redirect_uri="r", state="s", nonce="n", code_verifier="v" * 43)
    assert url.startswith("https://idp.example/authorize?tenant=acme&response_type=code&")
    assert s256("v" * 43) == query(url)["code_challenge"]
