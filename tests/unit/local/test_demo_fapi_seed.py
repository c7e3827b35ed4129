"""demo-fapi in the local seed: its private JWK stays in the seed file, the stack sees the public half."""

from __future__ import annotations


def test_the_seed_registers_only_the_public_half() -> None:
    from authgate_cli.local.seed import DEMO_SEED, read_seed

    (fapi,) = [c for c in read_seed(DEMO_SEED)["clients"] if c["client_id"] == "demo-fapi"]
    assert "private_jwk" not in fapi
    (key,) = fapi["jwks"]["keys"]
    assert key["kty"] == "EC" and not {"d", "p", "q"} & set(key)


def test_the_banner_and_the_demo_app_do_not_pretend_it_is_a_public_client() -> None:
    from authgate_cli.local.demo_app import demo_clients
    from authgate_cli.local.seed import DEMO_SEED, read_seed
    from authgate_cli.local.serve import banner

    sections = read_seed(DEMO_SEED)
    (line,) = [ln for ln in banner("http://127.0.0.1:3000", sections, "", None).splitlines() if "demo-fapi" in ln]
    assert "(private_key_jwt: docs/fapi2.md)" in line and "public" not in line
    ids = [c.client_id for c in demo_clients(sections["clients"], "http://127.0.0.1:8765")]
    assert "demo-fapi" not in ids and "demo-web" in ids
