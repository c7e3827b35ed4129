"""tenants.model: a tenant's policy checks and its one field list, to its DynamoDB item and back."""

from __future__ import annotations

from authgate.tenants.model import FIELDS, Tenant, from_item, tenant_of, to_item


def test_metadata_hosts_match_exactly_by_domain_or_all() -> None:
    tenant = Tenant("t", client_metadata_hosts=("tools.example", ".agents.example"))
    assert tenant.accepts_metadata_host("TOOLS.example")
    assert tenant.accepts_metadata_host("a.agents.example")
    assert not tenant.accepts_metadata_host("agents.example")  # ".agents.example" is the hosts under it
    assert not tenant.accepts_metadata_host("eviltools.example")
    assert Tenant("t", client_metadata_hosts=("*",)).accepts_metadata_host("any.example")
    assert not Tenant("t").accepts_metadata_host("tools.example")


def test_forbidden_scopes_and_approved_clients() -> None:
    tenant = Tenant("t", forbidden_scopes=frozenset({"charges:write"}), approved_clients=frozenset({"web"}))
    assert (tenant.forbids("charges:write"), tenant.forbids("charges:read")) == (True, False)
    assert (tenant.has_approved("web"), tenant.has_approved("other")) == (True, False)


def test_fields_follow_the_tuple_order() -> None:
    assert [f.name for f in FIELDS] == list(Tenant._fields)


def test_item_round_trip_stores_sets_sorted_and_leaves_empty_optional_fields_out() -> None:
    tenant = Tenant("t", name="T", currencies=("usd", "eur"), forbidden_scopes=frozenset({"b", "a"}),
                    approved_clients=frozenset({"y", "x"}), registered_clients_cap=5)
    item = to_item(tenant)
    assert item == {"tenant_id": {"S": "t"}, "name": {"S": "T"}, "currencies": {"L": [{"S": "usd"}, {"S": "eur"}]},
                    "forbidden_scopes": {"L": [{"S": "a"}, {"S": "b"}]},
                    "approved_clients": {"L": [{"S": "x"}, {"S": "y"}]},
                    "registered_clients_cap": {"N": "5"}, "sca_max_age": {"N": "300"}}
    assert from_item(item) == tenant


def test_values_by_name_ignore_unknown_names_and_take_defaults() -> None:
    assert tenant_of({"tenant_id": "t", "currencies": ["usd"], "forbidden_scopes": ["x"], "unknown": 1}) == \
        Tenant("t", currencies=("usd",), forbidden_scopes=frozenset({"x"}))
