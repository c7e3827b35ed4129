"""stores.consents: what a person approved for each client, remembered per resource."""

from __future__ import annotations


def test_a_persons_consents_are_listed_by_client_with_their_scopes_per_resource(aws: None) -> None:
    from authgate.stores.consents import ConsentStore

    store = ConsentStore()
    store.remember("demo", "usr_bob", "demo-web", ("openid", "charges:read"), None)
    store.remember("demo", "usr_bob", "demo-web", ("charges:write",), None)
    store.remember("demo", "usr_bob", "demo-agent", ("mcp:read",), "https://mcp.example")
    store.remember("demo", "usr_ann", "demo-web", ("openid",), None)
    store.remember("acme", "usr_bob", "acme-web", ("openid",), None)
    assert store.of_user("demo", "usr_bob") == [
        ("demo-agent", {"https://mcp.example": ("mcp:read",)}),
        ("demo-web", {"-": ("charges:read", "charges:write", "openid")})]
    store.forget("demo", "usr_bob", "demo-web")
    assert [client for client, _ in store.of_user("demo", "usr_bob")] == ["demo-agent"]
    assert store.of_user("demo", "usr_nobody") == []
