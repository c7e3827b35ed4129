"""http.response: a Response as the Lambda proxy integration result; headers spelled one way."""

from __future__ import annotations

import base64

from authgate.http.response import NO_STORE, Response


def test_json_is_compact_utf8_with_its_media_type_and_headers() -> None:
    response = Response.json(201, {"name": "café", "n": 1}, headers=NO_STORE)
    assert response.to_proxy() == {
        "statusCode": 201, "isBase64Encoded": False, "body": '{"name":"café","n":1}',
        "multiValueHeaders": {"Content-Type": ["application/json"], "Cache-Control": ["no-store"],
                              "Pragma": ["no-cache"]}}


def test_set_header_replaces_whatever_the_case_and_get_header_finds_it() -> None:
    response = Response(200, "", {"content-type": "text/plain"})
    response.set_header("Content-Type", "text/html")
    assert (response.headers, response.get_header("CONTENT-TYPE"), response.get_header("X-None")) == (
        {"Content-Type": "text/html"}, "text/html", None)


def test_repeated_headers_travel_in_multi_value_headers() -> None:
    response = Response(302, "", {"Location": "/x"}, multi_headers={"Set-Cookie": ["a=1", "b=2"]})
    assert response.to_proxy()["multiValueHeaders"] == {"Location": ["/x"], "Set-Cookie": ["a=1", "b=2"]}


def test_bytes_are_text_when_utf8_and_base64_otherwise() -> None:
    assert Response(200, "é".encode()).to_proxy()["body"] == "é"
    binary = Response(200, b"\x89PNG\xff").to_proxy()
    assert (binary["isBase64Encoded"], base64.b64decode(binary["body"])) == (True, b"\x89PNG\xff")
