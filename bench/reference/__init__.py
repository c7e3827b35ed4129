"""The reference stack: what a team would write for two of authgate's hot paths with the usual tools.

`python -m bench` measures it exactly as it measures authgate (cold start from a fresh process;
warm CPU per request with AWS answered from a recording) and prints authgate / reference ratios.
It is small and honest, not a straw man: Powertools' APIGatewayRestResolver, Logger and
idempotency utility, PyJWT, pydantic, boto3 clients built at import, one DynamoDB call where the
usual design has one. It does less than authgate on purpose (no revocation check, no rate
limiter, no negotiated error shapes): the usual stack leaves those out, and the comparison is
how much authgate's extra work costs.

- token_app: POST /oauth/token, client_credentials with client_secret_basic (RFC 6749 4.4):
  the client's item (one GetItem), a SHA-256 secret check, a PyJWT RS256 access token signed
  with a private key read once from Secrets Manager.
- charges_app: POST /charges with an Idempotency-Key (Powertools idempotency: a PutItem before,
  an UpdateItem after; a replay is the PutItem that finds the record) around one PutItem of the
  charge; GET /charges/{id} (one GetItem). Bearer tokens are checked with PyJWT against a public
  key from the environment; bodies with a pydantic model.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
APPS = {"token": HERE / "token_app.py", "charges": HERE / "charges_app.py"}


def environment() -> dict[str, str]:
    """What the reference reads from its environment, from the current local stack: a secret
    holding the current signing key as PEM (what the usual stack keeps there) and its kid (token),
    its public key as PEM (charges)."""
    from cryptography.hazmat.primitives import serialization

    from authgate.aws import secretsmanager
    from authgate.stores.signing_keys import CURRENT, KeyStore
    from authgate.tokens import jwk

    current = next(k for k in KeyStore().all() if k.state == CURRENT)
    private = jwk.private_key(json.loads(secretsmanager().get_secret_value(SecretId=current.secret_id)["SecretString"]))
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode("ascii")
    name = f"reference/signing/{current.kid}"
    try:
        secretsmanager().create_secret(Name=name, SecretString=pem)
    except secretsmanager().exceptions.ResourceExistsException:
        pass
    public = private.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    return {"REFERENCE_SIGNING_SECRET_ID": name, "REFERENCE_SIGNING_KID": current.kid,
            "REFERENCE_PUBLIC_KEY": public.decode("ascii")}


def load(function: str) -> ModuleType:
    """A fresh copy of the reference's `function` app (its clients built now, in the current AWS),
    with its environment applied first."""
    os.environ.update(environment())
    spec = importlib.util.spec_from_file_location(f"reference_{function}_app", APPS[function])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
