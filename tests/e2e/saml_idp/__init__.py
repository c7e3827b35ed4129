"""A real SAML 2.0 IdP nobody here wrote: SimpleSAMLphp from Debian, served by PHP's built-in server on loopback.

`simplesamlphp(directory, sp_entity_id=..., acs_url=..., slo_url=...)` writes its configuration
into `directory` (the templates beside this file: a hosted IdP with a key and certificate made
for the run, exampleauth:UserPass people from USERS, and authgate's service provider as an
IdP administrator registers it -- with `sp_certificate`, its signing certificate, against which
the IdP then checks every AuthnRequest and LogoutRequest, and requires them signed), starts `php -S 127.0.0.1:PORT` on SimpleSAMLphp's www
directory with SIMPLESAMLPHP_CONFIG_DIR pointing there, and yields the running IdP. Its URLs are
http on loopback: authgate reads them under the local loopback exception, as the local stack does.
`scripts/ensure-simplesamlphp` (make saml-idp, part of make test) installs the packages.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import secrets
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from tests.e2e.conftest import free_port, stop_process

WWW = Path("/usr/share/simplesamlphp/www")
TEMPLATES = Path(__file__).parent
READY_TIMEOUT = 20.0
# The IdP's people: (username, password) -> the attributes it releases (SAML attribute names as plain names).
USERS = {
    ("dana", "dana-password"): {"uid": ["dana"], "mail": ["dana@democorp.example"], "displayName": ["Dana Demo"],
                                "memberOf": ["staff", "finance"]},
    ("eli", "eli-password"): {"uid": ["eli"], "mail": ["eli@democorp.example"], "displayName": ["Eli Example"],
                              "memberOf": ["staff"]},
}


@dataclass
class SamlIdp:
    """A running SimpleSAMLphp IdP."""

    base_url: str
    directory: Path
    process: subprocess.Popen[bytes]

    @property
    def entity_id(self) -> str:
        return f"{self.base_url}/saml2/idp/metadata.php"

    @property
    def metadata_url(self) -> str:
        return f"{self.base_url}/saml2/idp/metadata.php"

    def log(self) -> str:
        """SimpleSAMLphp's own log and the PHP server's output (for a failing test's report)."""
        parts = [self.directory / "log" / "simplesamlphp.log", self.directory / "server.log"]
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in parts if p.exists())


def _key_and_certificate(directory: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "simplesamlphp test idp")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    (directory / "idp.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    (directory / "idp.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _write_config(directory: Path, values: dict[str, str]) -> None:
    for sub in ("config", "metadata", "cert", "log", "data", "tmp"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    for template, target in (("config.php", "config"), ("authsources.php", "config"),
                             ("saml20-idp-hosted.php", "metadata"), ("saml20-sp-remote.php", "metadata")):
        text = (TEMPLATES / template).read_text()
        for name, value in values.items():
            text = text.replace(f"{{{{{name}}}}}", value)
        (directory / target / template).write_text(text)
    users = {f"{user}:{password}": attributes for (user, password), attributes in USERS.items()}
    (directory / "config" / "users.json").write_text(json.dumps(users))
    _key_and_certificate(directory / "cert")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def simplesamlphp(directory: Path, *, sp_entity_id: str, acs_url: str, slo_url: str,
                  sign_response: bool = True, sp_certificate: str | None = None) -> Iterator[SamlIdp]:
    """SimpleSAMLphp running as an IdP that knows authgate's SP by these URLs; stopped at the end. With
    `sp_certificate` (PEM, as authgate's SP metadata publishes it) the IdP wants signed AuthnRequests
    (WantAuthnRequestsSigned in its metadata) and verifies them, and authgate's LogoutRequests, with it."""
    if not (WWW / "index.php").exists() or not _has_php():
        pytest.fail("SimpleSAMLphp or php is missing: run scripts/ensure-simplesamlphp (make saml-idp)")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    _write_config(directory, {"base_url": base_url, "directory": str(directory), "secret_salt": secrets.token_hex(16),
                              "admin_password": secrets.token_hex(16), "sp_entity_id": sp_entity_id,
                              "acs_url": acs_url, "slo_url": slo_url, "sign_response": "true" if sign_response
                              else "false", "require_signed_requests": "true" if sp_certificate else "false",
                              "sp_signing": _sp_signing(sp_certificate)})
    env = {**os.environ, "SIMPLESAMLPHP_CONFIG_DIR": str(directory / "config")}
    with open(directory / "server.log", "wb") as log:
        process = subprocess.Popen(["php", "-S", f"127.0.0.1:{port}", "-t", str(WWW)], env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
    idp = SamlIdp(base_url, directory, process)
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while not _answers(idp.metadata_url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"SimpleSAMLphp did not start:\n{idp.log()}")
            time.sleep(0.1)
        yield idp
    finally:
        stop_process(process)


def _sp_signing(certificate: str | None) -> str:
    """The SP entry's lines that register authgate's signing certificate and check its requests with it."""
    if certificate is None:
        return ""
    data = "".join(line for line in certificate.strip().splitlines() if not line.startswith("-----"))
    return (f"    'certData' => '{data}',\n    'validate.authnrequest' => true,\n"
            "    'validate.logout' => true,")


def _has_php() -> bool:
    try:
        out = subprocess.run(["php", "-m"], capture_output=True, text=True, timeout=20, check=True).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return False
    return {"dom", "xml", "openssl"} <= set(out)
