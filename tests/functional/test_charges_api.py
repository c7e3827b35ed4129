"""POST/GET /charges through the charges function: whole responses, every error shape."""

from __future__ import annotations

from tests.demo import ISSUER, body, headers

CHARGE = {"amount": 1050, "currency": "usd", "description": "Order 42"}


def test_create_returns_201_with_charge_and_location(demo, invoke):
    result = invoke("charges", demo.event("POST", body=CHARGE))
    charge = body(result)
    assert result["statusCode"] == 201
    assert set(charge) == {"id", "object", "amount", "currency", "description", "invoice_id", "status", "created",
                           "created_by", "grant_id"}
    assert charge["id"].startswith("ch_") and len(charge["id"]) == 29
    assert isinstance(charge["created"], int)
    assert {k: v for k, v in charge.items() if k not in ("id", "created")} == {
        "object": "charge", "amount": 1050, "currency": "usd", "description": "Order 42",
        "invoice_id": None, "status": "succeeded", "created_by": {"sub": "demo-service", "act": None},
        "grant_id": None}
    h = headers(result)
    assert h["content-type"] == "application/json"
    assert h["location"] == f"{ISSUER}/charges/{charge['id']}"
    assert h["cache-control"] == "no-store"
    assert "idempotent-replayed" not in h
    assert h["x-request-id"]


def create(demo, invoke, client="demo-service", **charge):
    result = invoke("charges", demo.event("POST", body={**CHARGE, **charge}, client=client))
    assert result["statusCode"] == 201, result["body"]
    return body(result)


def test_get_returns_the_charge(demo, invoke):
    charge = create(demo, invoke)
    result = invoke("charges", demo.event("GET", f"/charges/{charge['id']}", scope="charges:read"))
    assert result["statusCode"] == 200
    assert body(result) == charge
    h = headers(result)
    assert h["content-type"] == "application/json" and h["cache-control"] == "no-store"
    assert "location" not in h


def test_another_tenants_charge_is_404_not_403(demo, invoke):
    theirs = create(demo, invoke, client="acme-service")
    result = invoke("charges", demo.event("GET", f"/charges/{theirs['id']}"))
    assert result["statusCode"] == 404
    assert headers(result)["content-type"] == "application/problem+json"
    problem = body(result)
    assert problem == {
        "type": f"{ISSUER}/problems/not_found", "title": "Not found", "status": 404,
        "detail": f"No charge {theirs['id']} exists.", "instance": f"/charges/{theirs['id']}",
        "code": "not_found", "traceId": headers(result)["x-request-id"],
    }
    # ... and reads exactly like an id that exists nowhere.
    missing = "ch_" + "0" * 26
    other = body(invoke("charges", demo.event("GET", f"/charges/{missing}")))
    assert {k: v for k, v in other.items() if k not in ("detail", "instance", "traceId")} == {
        k: v for k, v in problem.items() if k not in ("detail", "instance", "traceId")}


def test_malformed_charge_id_is_404(demo, invoke):
    for charge_id in ("nope", "ch_short", "ch_" + "0" * 25 + "!", "charge-for%23abc"):
        result = invoke("charges", demo.event("GET", f"/charges/{charge_id}"))
        assert result["statusCode"] == 404
        assert body(result)["detail"] == "No such charge."


def test_list_is_newest_first_and_paginates_with_cursor(demo, invoke):
    ids = [create(demo, invoke, amount=100 + i)["id"] for i in range(5)]
    create(demo, invoke, client="acme-service")  # another tenant's charge never shows up
    seen, cursor, pages = [], None, 0
    while True:
        query = {"limit": "2", **({"cursor": cursor} if cursor else {})}
        result = invoke("charges", demo.event("GET", query=query, scope="charges:read"))
        assert result["statusCode"] == 200
        page = body(result)
        assert set(page) == {"object", "data", "has_more", "next_cursor"} and page["object"] == "list"
        seen += [c["id"] for c in page["data"]]
        pages += 1
        if not page["has_more"]:
            assert page["next_cursor"] is None
            break
        assert len(page["data"]) == 2 and page["next_cursor"]
        cursor = page["next_cursor"]
    assert seen == list(reversed(ids))
    assert pages == 3


def test_list_default_limit_is_10(demo, invoke):
    for i in range(11):
        create(demo, invoke, amount=1 + i)
    page = body(invoke("charges", demo.event("GET")))
    assert len(page["data"]) == 10 and page["has_more"] is True


def test_list_of_empty_tenant(demo, invoke):
    create(demo, invoke)
    result = invoke("charges", demo.event("GET", client="acme-service"))
    assert result["statusCode"] == 200
    assert body(result) == {"object": "list", "data": [], "has_more": False, "next_cursor": None}


def bad_parameter(result, parameter, detail):
    assert result["statusCode"] == 400
    assert headers(result)["content-type"] == "application/problem+json"
    problem = body(result)
    assert problem["code"] == "invalid_request" and problem["status"] == 400
    assert problem["detail"] == detail
    assert problem["errors"] == [{"detail": detail, "parameter": parameter}]


def test_bad_limit_is_400_naming_the_parameter(demo, invoke):
    detail = "limit must be an integer from 1 to 100."
    for limit in ("0", "101", "abc", "-1", "1.5", "", "٣"):
        bad_parameter(invoke("charges", demo.event("GET", query={"limit": limit})), "limit", detail)
    bad_parameter(invoke("charges", demo.event("GET", query={"limit": ["1", "2"]})), "limit", "Send limit once.")
    bad_parameter(invoke("charges", demo.event("GET", query={"page": "2"})), "page",
                  "Unknown query parameter 'page'; use limit and cursor.")


def test_bad_or_foreign_cursor_is_400(demo, invoke):
    for i in range(3):
        create(demo, invoke, amount=10 + i)
    cursor = body(invoke("charges", demo.event("GET", query={"limit": "1"})))["next_cursor"]
    detail = "The cursor is not valid; pass next_cursor from a previous page unchanged."
    head, tail = cursor.split(".")
    tampered = [cursor[:-2], head + "." + tail[::-1], "x" + cursor, "not-a-cursor", "", "a.b.c", "é.é"]
    for bad in tampered:
        bad_parameter(invoke("charges", demo.event("GET", query={"cursor": bad})), "cursor", detail)
    # A valid cursor of the demo tenant means nothing to another tenant.
    bad_parameter(invoke("charges", demo.event("GET", client="acme-service", query={"cursor": cursor})),
                  "cursor", detail)


def test_post_needs_write_scope(demo, invoke):
    result = invoke("charges", demo.event("POST", body=CHARGE, client="demo-reader", scope="charges:read"))
    assert result["statusCode"] == 403
    assert body(result)["code"] == "insufficient_scope"
    assert headers(result)["www-authenticate"].startswith('Bearer realm="api", error="insufficient_scope"')


def test_no_token_is_401_and_nothing_is_created(demo, invoke):
    result = invoke("charges", demo.event("POST", body=CHARGE, client=None))
    assert result["statusCode"] == 401
    metadata = 'resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/charges"'
    assert headers(result)["www-authenticate"] == (
        f'Bearer realm="api", {metadata}, DPoP algs="ES256 EdDSA RS256 PS256", {metadata}')
    assert body(result)["code"] == "unauthenticated"


def test_other_method_is_405_with_allow(demo, invoke):
    result = invoke("charges", demo.event("DELETE", "/charges/ch_" + "0" * 26))
    assert result["statusCode"] == 405
    assert headers(result)["allow"] == "GET"
