"""local.events: HTTP request -> REST proxy event (payload 1.0), as API Gateway builds it."""

from __future__ import annotations

import base64

from authgate_cli.local.events import HttpRequest, build_event, is_text


def test_full_event_shape() -> None:
    request = HttpRequest(
        method="post", path="/charges/ch_1", raw_query="a=1&a=2&b=&c=x%20y",
        headers=[("Host", "127.0.0.1:3000"), ("X-Multi", "one"), ("X-Multi", "two"),
                 ("Content-Type", "application/json"), ("User-Agent", "t/1")],
        body=b'{"amount":1}', source_ip="10.0.0.9")
    event = build_event(request, resource="/charges/{id}", path_params={"id": "ch_1"},
                        request_id="req-1", extended_id="ext-1=", now=1767225600.5)
    assert event == {
        "resource": "/charges/{id}",
        "path": "/charges/ch_1",
        "httpMethod": "POST",
        "headers": {"Host": "127.0.0.1:3000", "X-Multi": "two", "Content-Type": "application/json",
                    "User-Agent": "t/1"},
        "multiValueHeaders": {"Host": ["127.0.0.1:3000"], "X-Multi": ["one", "two"],
                              "Content-Type": ["application/json"], "User-Agent": ["t/1"]},
        "queryStringParameters": {"a": "2", "b": "", "c": "x y"},
        "multiValueQueryStringParameters": {"a": ["1", "2"], "b": [""], "c": ["x y"]},
        "pathParameters": {"id": "ch_1"},
        "stageVariables": None,
        "requestContext": {
            "accountId": "123456789012", "apiId": "local", "resourceId": "/charges/{id}",
            "resourcePath": "/charges/{id}", "httpMethod": "POST", "requestId": "req-1",
            "extendedRequestId": "ext-1=", "requestTime": "01/Jan/2026:00:00:00 +0000",
            "requestTimeEpoch": 1767225600500, "path": "/charges/ch_1", "protocol": "HTTP/1.1",
            "stage": "local", "domainName": "127.0.0.1", "domainPrefix": "127",
            "identity": {
                "sourceIp": "10.0.0.9", "userAgent": "t/1", "apiKey": None, "apiKeyId": None,
                "accountId": None, "caller": None, "user": None, "userArn": None,
                "cognitoIdentityId": None, "cognitoIdentityPoolId": None,
                "cognitoAuthenticationType": None, "cognitoAuthenticationProvider": None,
            },
        },
        "body": '{"amount":1}',
        "isBase64Encoded": False,
    }


def test_absent_maps_and_body_are_null() -> None:
    event = build_event(HttpRequest("GET", "/"), resource="/", path_params={})
    assert event["headers"] is None and event["multiValueHeaders"] is None
    assert event["queryStringParameters"] is None and event["multiValueQueryStringParameters"] is None
    assert event["pathParameters"] is None
    assert (event["body"], event["isBase64Encoded"]) == (None, False)
    assert len(event["requestContext"]["requestId"]) == 36
    assert event["requestContext"]["extendedRequestId"].endswith("=")


def test_binary_body_is_base64() -> None:
    raw = bytes(range(256))
    request = HttpRequest("POST", "/x", headers=[("Content-Type", "application/octet-stream")], body=raw)
    event = build_event(request, resource="/x", path_params=None)
    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == raw


def test_text_type_that_is_not_utf8_is_base64_rather_than_mangled() -> None:
    request = HttpRequest("POST", "/x", headers=[("Content-Type", "text/plain")], body=b"\xff\xfe")
    event = build_event(request, resource="/x", path_params=None)
    assert (event["body"], event["isBase64Encoded"]) == ("//4=", True)


def test_api_key_is_reported_in_identity() -> None:
    event = build_event(HttpRequest("GET", "/charges"), resource="/charges", path_params=None,
                        api_key="demo-api-key")
    assert event["requestContext"]["identity"]["apiKey"] == "demo-api-key"


def test_text_media_types() -> None:
    for media in (None, "text/html", "application/json; charset=utf-8", "application/problem+json",
                  "application/x-www-form-urlencoded", "application/vnd.api+json"):
        assert is_text(media), media
    for media in ("application/octet-stream", "image/png", "application/pdf"):
        assert not is_text(media), media
