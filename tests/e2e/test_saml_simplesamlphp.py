"""authgate's SAML service provider against SimpleSAMLphp (Debian's 1.19), a real IdP nobody here wrote.

The IdP's metadata is fetched and read into a record; `start` sends the person to its login page,
which an HTTP client (and, once, headless Chromium) fills in; the IdP's auto-POST form carries the
signed Response back, and `finish` must return the person -- or refuse a replay or a response to
another request. A second IdP requires signed requests, with authgate's certificate as its SP
metadata publishes it: a signed request signs the person in, and the same IdP refuses one unsigned,
altered or signed with another key. ReplayTable and KeysTable are moto's.
"""

from __future__ import annotations

import base64
import html
import re
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml import (
    finish,
    logout_url,
    metadata,
    metadata_url,
    sp_keys,
    sp_metadata,
    start,
)
from authgate.federation.saml.logout_response import check as check_logout_response
from authgate.federation.saml.vocabulary import PERSISTENT
from authgate.identity_providers.model import IdentityProvider
from tests.e2e.conftest import free_port
from tests.e2e.saml_idp import SamlIdp, simplesamlphp
from tests.saml_support import SigningKey, saml_record, signing_key, store_sp_keys

TENANT = "acme"
PASSWORD_CLASS = "urn:oasis:names:tc:SAML:2.0:ac:classes:Password"


class Acs:
    """authgate's ACS and SLO URLs stood in for: a loopback listener that keeps each POSTed form and each GET."""

    def __init__(self) -> None:
        self.forms: list[dict[str, list[str]]] = []
        self.redirects: list[tuple[str, dict[str, list[str]]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the IdP's LogoutResponse, by HTTP-Redirect to the SLO URL
                owner.redirects.append((self.path.split("?", 1)[0], parse_qs(self.path.partition("?")[2])))
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"signed out")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                owner.forms.append(parse_qs(self.rfile.read(length).decode("ascii")))
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"received")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/saml/{TENANT}"


@pytest.fixture(scope="module")
def acs() -> Iterator[Acs]:
    listener = Acs()
    thread = threading.Thread(target=listener.server.serve_forever, daemon=True)
    thread.start()
    yield listener
    listener.server.shutdown()
    listener.server.server_close()


@pytest.fixture(scope="module")
def idp(acs: Acs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SamlIdp]:
    with simplesamlphp(tmp_path_factory.mktemp("simplesamlphp"), sp_entity_id=acs.base, acs_url=f"{acs.base}/acs",
                       slo_url=f"{acs.base}/slo") as running:
        yield running


@pytest.fixture(scope="module")
def record(idp: SamlIdp) -> IdentityProvider:
    saml = metadata.parse(metadata_url.fetch(idp.metadata_url, allow_loopback=True), allow_loopback=True)
    return saml_record(TENANT, saml)


class Posted:
    """What the IdP's auto-POST form would send to the ACS."""

    def __init__(self, page: requests.Response) -> None:
        action = re.search(r'<form[^>]+action="([^"]+)"', page.text)
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page.text))
        assert action and "SAMLResponse" in fields, f"no auto-POST form on {page.url}:\n{page.text[:2000]}"
        self.action = html.unescape(action.group(1))
        self.saml_response = html.unescape(fields["SAMLResponse"])
        self.relay_state = html.unescape(fields.get("RelayState", ""))


def sign_in(session: requests.Session, url: str, user: str = "dana", password: str = "dana-password",
            ) -> tuple[Posted, bool]:
    """Follow `url` to the IdP; sign in when it shows its login form. (the auto-POST form, whether it asked)."""
    page = session.get(url, timeout=20)
    asked = 'name="password"' in page.text
    if asked:
        auth_state = html.unescape(re.search(r'name="AuthState" value="([^"]+)"', page.text).group(1))  # type: ignore[union-attr]
        page = session.post(page.url, data={"username": user, "password": password, "AuthState": auth_state},
                            timeout=20)
    assert page.status_code == 200, page.text[:2000]
    return Posted(page), asked


def begin(record: IdentityProvider, acs: Acs, **options: Any) -> tuple[str, str]:
    return start(record, acs_url=f"{acs.base}/acs", sp_entity_id=acs.base, relay_state="st-1", **options)


def finished(record: IdentityProvider, acs: Acs, posted: Posted, request_id: str) -> Any:
    return finish(record, saml_response_b64=posted.saml_response, acs_url=f"{acs.base}/acs", sp_entity_id=acs.base,
                  expected_request_id=request_id)


def test_the_idps_metadata_is_fetched_and_read_into_the_record(idp: SamlIdp, record: IdentityProvider) -> None:
    cert = (idp.directory / "cert" / "idp.crt").read_text()
    assert record.saml == {"entity_id": idp.entity_id, "sso_url": f"{idp.base_url}/saml2/idp/SSOService.php",
                           "slo_url": f"{idp.base_url}/saml2/idp/SingleLogoutService.php",
                           "certificates": [cert], "name_id_format": PERSISTENT}


@pytest.mark.usefixtures("aws")
def test_a_sign_in_at_the_idp_gives_the_person_it_vouches_for(record: IdentityProvider, acs: Acs, idp: SamlIdp) -> None:
    url, request_id = begin(record, acs)
    posted, asked = sign_in(requests.Session(), url)
    person = finished(record, acs, posted, request_id)
    assert (asked, posted.action, posted.relay_state) == (True, f"{acs.base}/acs", "st-1")
    fmt, _, value = person.subject.partition("|")
    assert (fmt, len(value)) == (PERSISTENT, 40)
    assert person._replace(subject="", auth_time=0, session_id="") == person._replace(
        tenant_id=TENANT, issuer=idp.entity_id, subject="", email="dana@democorp.example", name="Dana Demo",
        groups=("staff", "finance"), acr=PASSWORD_CLASS, amr=(), auth_time=0, session_id="", email_verified=False)
    assert abs(person.auth_time - time.time()) < 60 and person.session_id.startswith("_")


@pytest.mark.usefixtures("aws")
def test_a_second_sign_in_by_sso_names_the_same_person_and_another_person_another(record: IdentityProvider,
                                                                                   acs: Acs) -> None:
    session = requests.Session()
    first_url, first_id = begin(record, acs)
    first = finished(record, acs, sign_in(session, first_url)[0], first_id)
    again_url, again_id = begin(record, acs)
    posted, asked = sign_in(session, again_url)
    again = finished(record, acs, posted, again_id)
    eli_url, eli_id = begin(record, acs)
    eli = finished(record, acs, sign_in(requests.Session(), eli_url, "eli", "eli-password")[0], eli_id)
    assert (asked, again.subject) == (False, first.subject)
    assert eli.subject != first.subject and eli.email == "eli@democorp.example"


@pytest.mark.usefixtures("aws")
def test_force_authn_makes_the_idp_ask_for_the_password_again(record: IdentityProvider, acs: Acs) -> None:
    session = requests.Session()
    url, request_id = begin(record, acs)
    finished(record, acs, sign_in(session, url)[0], request_id)
    forced_url, forced_id = begin(record, acs, force_authn=True)
    posted, asked = sign_in(session, forced_url)
    assert (asked, finished(record, acs, posted, forced_id).email) == (True, "dana@democorp.example")


@pytest.mark.usefixtures("aws")
def test_the_captured_response_posted_again_is_refused(record: IdentityProvider, acs: Acs) -> None:
    url, request_id = begin(record, acs)
    posted = sign_in(requests.Session(), url)[0]
    finished(record, acs, posted, request_id)
    with pytest.raises(UpstreamRefused) as caught:
        finished(record, acs, posted, request_id)
    assert caught.value.reason == "replayed"


@pytest.mark.usefixtures("aws")
def test_a_response_to_an_earlier_request_is_refused(record: IdentityProvider, acs: Acs) -> None:
    session = requests.Session()
    earlier_url, _ = begin(record, acs)
    posted = sign_in(session, earlier_url)[0]
    _, later_id = begin(record, acs)
    with pytest.raises(UpstreamRefused) as caught:
        finished(record, acs, posted, later_id)
    assert caught.value.reason == "in_response_to"


@pytest.mark.usefixtures("aws")
def test_a_response_for_another_service_provider_is_refused(record: IdentityProvider, acs: Acs) -> None:
    """SimpleSAMLphp qualifies its persistent NameID with the SP it made it for (SPNameQualifier), checked
    before the audience."""
    url, request_id = begin(record, acs)
    posted = sign_in(requests.Session(), url)[0]
    with pytest.raises(UpstreamRefused) as caught:
        finish(record, saml_response_b64=posted.saml_response, acs_url=f"{acs.base}/acs",
               sp_entity_id=f"{acs.base}-other", expected_request_id=request_id)
    assert (caught.value.reason, caught.value.internal) == (
        "name_id", "the NameID is qualified for another IdP or service provider")


@pytest.mark.browser
@pytest.mark.usefixtures("aws")
def test_in_chromium_the_idps_form_posts_the_response_to_the_acs(record: IdentityProvider, acs: Acs,
                                                                 context: Any) -> None:
    url, request_id = begin(record, acs)
    page = context.new_page()
    page.goto(url)
    page.fill('input[name="username"]', "dana")
    page.fill('input[name="password"]', "dana-password")
    before = len(acs.forms)
    with page.expect_navigation(url=f"{acs.base}/acs"):
        page.click('button[type="submit"], input[type="submit"]')
    form = acs.forms[before]
    assert (sorted(form), form["RelayState"]) == (["RelayState", "SAMLResponse"], ["st-1"])
    person = finish(record, saml_response_b64=form["SAMLResponse"][0], acs_url=f"{acs.base}/acs",
                    sp_entity_id=acs.base, expected_request_id=request_id)
    assert (person.email, page.content().count("received")) == ("dana@democorp.example", 1)


def test_the_templates_name_every_placeholder_they_use(idp: SamlIdp) -> None:
    written = [p.read_text() for p in (idp.directory / "config").glob("*.php")]
    written += [p.read_text() for p in (idp.directory / "metadata").glob("*.php")]
    assert [t for t in written if "{{" in t] == [] and len(written) == 4
    assert Path(idp.directory / "cert" / "idp.key").stat().st_size > 1000


@pytest.mark.usefixtures("aws")
def test_an_idp_that_signs_only_its_assertions_is_taken(acs: Acs, tmp_path: Path) -> None:
    with simplesamlphp(tmp_path, sp_entity_id=acs.base, acs_url=f"{acs.base}/acs", slo_url=f"{acs.base}/slo",
                       sign_response=False) as plain:
        record = saml_record(TENANT, metadata.parse(metadata_url.fetch(plain.metadata_url, allow_loopback=True),
                                                   allow_loopback=True))
        url, request_id = begin(record, acs)
        posted = sign_in(requests.Session(), url)[0]
        person = finished(record, acs, posted, request_id)
    assert b"<ds:Signature" not in base64.b64decode(posted.saml_response).split(b"<saml:Assertion")[0]
    assert (person.issuer, person.email) == (plain.entity_id, "dana@democorp.example")


@pytest.mark.usefixtures("aws")
def test_single_logout_ends_the_idps_session(record: IdentityProvider, acs: Acs) -> None:
    session = requests.Session()
    url, request_id = begin(record, acs)
    person = finished(record, acs, sign_in(session, url)[0], request_id)
    logout = logout_url(record, sp_entity_id=acs.base, subject=person.subject, session_index=person.session_id,
                        relay_state="bye")
    assert logout is not None
    answer = session.get(logout[0], timeout=20)
    path, query = acs.redirects[-1]
    response = zlib.decompress(base64.b64decode(query["SAMLResponse"][0]), -15).decode()
    assert (answer.status_code, answer.text, path, query["RelayState"]) == (200, "signed out", "/saml/acme/slo", ["bye"])
    assert f'InResponseTo="{logout[1]}"' in response and "urn:oasis:names:tc:SAML:2.0:status:Success" in response
    # authgate's check of the IdP's answer (GET /saml/{tenant}/slo): this one holds, signed by the IdP in the query;
    # for another request, or with a value the IdP did not sign, it does not.
    answer_params = {name: values[0] for name, values in query.items()}
    assert sorted(answer_params) == ["RelayState", "SAMLResponse", "SigAlg", "Signature"]
    check_logout_response(record, answer_params, slo_url=f"{acs.base}/slo", expected_request_id=logout[1])
    for params, request_id, reason in (
            (answer_params, "_another-request", "in_response_to"),
            ({**answer_params, "RelayState": "changed"}, logout[1], "signature_invalid")):
        with pytest.raises(UpstreamRefused) as caught:
            check_logout_response(record, params, slo_url=f"{acs.base}/slo", expected_request_id=request_id)
        assert caught.value.reason == reason
    again_url, _ = begin(record, acs)
    assert 'name="password"' in session.get(again_url, timeout=20).text


def test_without_a_logout_service_there_is_no_logout_url(record: IdentityProvider) -> None:
    assert logout_url(record._replace(saml={**record.saml, "slo_url": ""}), sp_entity_id="https://sp.example",
                      subject="x|y", session_index="", relay_state="") is None


# -- An IdP that requires signed requests (WantAuthnRequestsSigned; validate.authnrequest and validate.logout).

@pytest.fixture(scope="module")
def sp_key() -> SigningKey:
    """authgate's SAML signing key as `authgate saml-keys add` makes it (RSA 3072, self-signed), once per module."""
    private_pem, certificate = sp_keys.generate("authgate SAML SP e2e", int(time.time()))
    key = load_pem_private_key(private_pem.encode(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey)
    return SigningKey(key, certificate)


@pytest.fixture(scope="module")
def strict_idp(acs: Acs, sp_key: SigningKey, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SamlIdp]:
    """The IdP's administrator registers authgate's SP with the certificate its SP metadata publishes."""
    published = sp_metadata(acs.base, f"{acs.base}/acs", f"{acs.base}/slo", (sp_key.cert_pem,)).decode()
    found = re.search(r"<ds:X509Certificate>([^<]+)</ds:X509Certificate>", published)
    assert found and 'AuthnRequestsSigned="true"' in published
    with simplesamlphp(tmp_path_factory.mktemp("simplesamlphp-strict"), sp_entity_id=acs.base,
                       acs_url=f"{acs.base}/acs", slo_url=f"{acs.base}/slo", sp_certificate=found.group(1)) as running:
        yield running


@pytest.fixture(scope="module")
def strict_record(strict_idp: SamlIdp) -> IdentityProvider:
    return saml_record(TENANT, metadata.parse(metadata_url.fetch(strict_idp.metadata_url, allow_loopback=True),
                                              allow_loopback=True))


def refused_by(url: str, session: requests.Session | None = None) -> str:
    """The IdP's answer to `url` is its error page (SimpleSAMLphp's is a 200), never its login form or a Response:
    the exception it names."""
    page = (session or requests.Session()).get(url, timeout=20)
    assert (page.status_code, "Unhandled exception" in page.text, 'name="password"' in page.text,
            "SAMLResponse" in page.text) == (200, True, False, False), page.text[:1000]
    return html.unescape(page.text)


@pytest.mark.usefixtures("aws")
def test_an_idp_that_wants_signed_requests_signs_the_person_in_from_a_signed_one(
        strict_idp: SamlIdp, strict_record: IdentityProvider, acs: Acs, sp_key: SigningKey) -> None:
    assert strict_record.saml is not None and strict_record.saml["want_requests_signed"] is True
    store_sp_keys(sp_key)
    url, request_id = begin(strict_record, acs)
    posted, asked = sign_in(requests.Session(), url)
    person = finished(strict_record, acs, posted, request_id)
    assert re.search(r"\?SAMLRequest=[^&]+&RelayState=st-1&SigAlg=http%3A%2F%2Fwww\.w3\.org%2F2001%2F04%2F"
                     r"xmldsig-more%23rsa-sha256&Signature=[^&]+$", url), url
    assert (asked, posted.relay_state, person.issuer, person.email) == (
        True, "st-1", strict_idp.entity_id, "dana@democorp.example")


@pytest.mark.usefixtures("aws")
def test_the_same_idp_refuses_a_request_unsigned_altered_or_signed_with_another_key(
        strict_idp: SamlIdp, strict_record: IdentityProvider, acs: Acs, sp_key: SigningKey) -> None:
    store_sp_keys(sp_key)
    url, _ = begin(strict_record, acs)
    unsigned = url.partition("&SigAlg=")[0]
    altered = url.replace("&RelayState=st-1&", "&RelayState=st-2&")
    store_sp_keys(signing_key("sp-other"))
    other_key, _ = begin(strict_record, acs)
    reasons = [refused_by(u) for u in (unsigned, altered, other_key)]
    assert "Validation of received messages enabled, but no signature found on message." in reasons[0], reasons[0]
    assert all("Unable to validate signature on query string." in r for r in reasons[1:]), reasons
    # The signed request itself, sent after them, is taken: the refusals are the signature's, nothing else.
    assert 'name="password"' in requests.get(url, timeout=20).text
    # Without a key, authgate sends such an IdP nothing it would refuse.
    store_sp_keys()
    with pytest.raises(UpstreamRefused) as caught:
        begin(strict_record, acs)
    assert caught.value.reason == "requests_unsigned"


@pytest.mark.usefixtures("aws")
def test_its_single_logout_takes_the_signed_logout_request_and_refuses_it_unsigned(
        strict_idp: SamlIdp, strict_record: IdentityProvider, acs: Acs, sp_key: SigningKey) -> None:
    store_sp_keys(sp_key)
    session = requests.Session()
    url, request_id = begin(strict_record, acs)
    person = finished(strict_record, acs, sign_in(session, url)[0], request_id)
    logout = logout_url(strict_record, sp_entity_id=acs.base, subject=person.subject,
                        session_index=person.session_id, relay_state="bye")
    assert logout is not None and "&Signature=" in logout[0]
    assert "Validation of received messages enabled, but no signature found on message." in refused_by(
        logout[0].partition("&SigAlg=")[0], session)
    answer = session.get(logout[0], timeout=20)
    path, query = acs.redirects[-1]
    assert (answer.status_code, answer.text, path, query["RelayState"]) == (200, "signed out", "/saml/acme/slo", ["bye"])
    check_logout_response(strict_record, {name: values[0] for name, values in query.items()},
                          slo_url=f"{acs.base}/slo", expected_request_id=logout[1])
