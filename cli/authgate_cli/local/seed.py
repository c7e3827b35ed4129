"""Seed data for a local stack (the demo tenants, clients, users, API key); never used by a deployed stage.

A seed file is a JSON object of sections. Each section is a list of items handed to the loader
its loader (authgate_cli.local.loaders): tenants, clients, users, invoices, identity_providers.
`api_keys` is read by the local API Gateway emulator, not written to a table. `include` lists
further seed files (paths relative to this one) loaded first. Secrets and passwords are
plaintext in the file and hashed by the loaders. In a client's `redirect_uris` and
`post_logout_redirect_uris`, `{demo_app}`
stands for the origin of the demo app `authgate serve` runs (http://127.0.0.1:8765 unless
--callback-port says otherwise), so the demo clients' redirect URIs follow its port. In an identity
provider's `issuer`, `{demo_idp}` stands for the origin of the demo identity provider it runs
(Demo Corp SSO, authgate_cli.local.demo_idp: the port after the demo app's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from authgate_cli.local.loaders import LOADERS

DEMO_SEED = Path(__file__).with_name("demo_seed.json")
# Where the demo app listens unless `authgate serve --callback-port` moves it.
DEMO_APP_ORIGIN = "http://127.0.0.1:8765"
DEMO_APP_PLACEHOLDER = "{demo_app}"

# Sections consumed elsewhere (the emulator reads api_keys from the seed itself).
PASSIVE = {"api_keys", "include"}


class SeedError(ValueError):
    """The seed file is not valid (unknown section, wrong shape)."""


def read_seed(path: Path, demo_app: str = DEMO_APP_ORIGIN) -> dict[str, list[dict[str, Any]]]:
    """The merged sections of a seed file and its includes (includes first), `{demo_app}` resolved."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SeedError(f"{path}: {exc}") from exc
    if not isinstance(raw, dict):
        raise SeedError(f"{path}: a seed file is a JSON object of sections")
    merged: dict[str, list[dict[str, Any]]] = {}
    for include in raw.get("include", []):
        for section, items in read_seed(path.parent / include, demo_app).items():
            merged.setdefault(section, []).extend(items)
    for section, items in raw.items():
        if section.startswith("_") or section == "include":
            continue
        if section not in LOADERS and section not in PASSIVE:
            raise SeedError(f"{path}: unknown section {section!r}; known: {sorted(LOADERS) + ['api_keys']}")
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise SeedError(f"{path}: section {section!r} must be a list of objects")
        if section == "clients":
            items = [_public_keys(_with_demo_app(item, demo_app)) for item in items]
        merged.setdefault(section, []).extend(items)
    return merged


def _public_keys(client: dict[str, Any]) -> dict[str, Any]:
    """A demo client's `private_jwk` (local only, for trying private_key_jwt) registered as its
    public half: the table, like a real registration, holds public keys only."""
    from authgate.tokens.jwk import only_public

    private = client.get("private_jwk")
    if not isinstance(private, dict):
        return client
    rest = {k: v for k, v in client.items() if k != "private_jwk"}
    return {**rest, "jwks": {"keys": [only_public(private)]}}


def _with_demo_app(client: dict[str, Any], demo_app: str) -> dict[str, Any]:
    resolved = dict(client)
    for name in URI_LISTS:
        uris = client.get(name)
        if isinstance(uris, list):
            resolved[name] = [u.replace(DEMO_APP_PLACEHOLDER, demo_app) if isinstance(u, str) else u for u in uris]
    return resolved


# A client's lists of URIs in which `{demo_app}` is resolved.
URI_LISTS = ("redirect_uris", "post_logout_redirect_uris")


def load_seed(path: Path = DEMO_SEED, dynamodb: Any = None, demo_app: str = DEMO_APP_ORIGIN) -> dict[str, Any]:
    """Load a seed file into the tables; returns a summary (counts, api_keys) for the banner."""
    sections = read_seed(path, demo_app)
    summary: dict[str, Any] = {}
    for section, loader in LOADERS.items():
        items = sections.get(section)
        if items:
            summary[section] = loader(items, dynamodb)
    summary["api_keys"] = list(sections.get("api_keys", []))
    return summary
