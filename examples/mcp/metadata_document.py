"""Serve this example client's Client ID Metadata Document over https on 127.0.0.1, for a local stack.

    python metadata_document.py DIR --redirect-uri http://127.0.0.1:8767/callback [--port 8443]

A client that publishes a metadata document uses its https URL as its client_id
(draft-ietf-oauth-client-id-metadata-document 3); authgate fetches it. On one machine that needs
a certificate authgate trusts: this makes a CA for the run in DIR (DIR/ca.pem, the only file
another program needs; the keys stay in DIR, readable by you only), serves the document at
https://127.0.0.1:PORT/client.json with a certificate it signed, and says how to start authgate:
`SSL_CERT_FILE=DIR/ca.pem authgate serve --allow-loopback-outbound` (docs/mcp.md).
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import json
import ssl
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def make_ca(directory: Path, names: Sequence[str] = ("localhost",),
            addresses: Sequence[str] = ("127.0.0.1",)) -> tuple[Path, Path, Path]:
    """A CA valid for two days and a server certificate it signed for `names` and `addresses`, as PEM
    files in `directory`: (ca, cert, key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "authgate example local CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = [x509.DNSName(n) for n in names]
    sans += [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].touch(mode=0o600)
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


def document(url: str, redirect_uri: str) -> dict[str, Any]:
    """A public client's metadata: client_id is the document's own URL (draft 4.1), PKCE, no secret."""
    return {"client_id": url, "client_name": "Notes client (authgate example)", "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none"}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="where the CA and the certificate go (ca.pem for authgate)")
    parser.add_argument("--redirect-uri", required=True, help="the client's redirect URI (MCP_CALLBACK_PORT's)")
    parser.add_argument("--port", type=int, default=8443, help="https port on 127.0.0.1 (default 8443)")
    args = parser.parse_args(argv)
    ca, cert, key = make_ca(args.directory)
    url = f"https://127.0.0.1:{args.port}/client.json"
    body = json.dumps(document(url, args.redirect_uri)).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = self.path == "/client.json"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "max-age=300")
            self.send_header("Content-Length", str(len(body) if found else 2))
            self.end_headers()
            self.wfile.write(body if found else b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"client ID metadata document: {url}", flush=True)
    print(f"start authgate trusting its CA: SSL_CERT_FILE={ca} .venv/bin/authgate serve "
          "--allow-loopback-outbound", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
