"""Outbound form POSTs against a real HTTPS server on 127.0.0.1 (OpenID Connect Back-Channel Logout 1.0 2.5)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from authgate.outbound.connection import Limits
from authgate.outbound.post import Failed, post_form, target
from tests.document_server import DocumentServer, Route, document_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


def loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


def post(server: DocumentServer, url: str, **kwargs: object) -> int:
    return post_form(url, {"logout_token": "a.b.c"}, resolver=kwargs.pop("resolver", loopback),  # type: ignore[arg-type]
                     allow_loopback=bool(kwargs.pop("allow_loopback", True)), context=server.client_context(),
                     **kwargs)  # type: ignore[arg-type]


def failure(server: DocumentServer, url: str, **kwargs: object) -> Failed:
    with pytest.raises(Failed) as caught:
        post(server, url, **kwargs)
    return caught.value


def test_the_form_is_posted_to_the_checked_address_with_the_host_verified(server: DocumentServer) -> None:
    server.post_answers["/bcl"] = [Route(b"", 200, {})]
    status = post(server, server.url("/bcl", host="client.example"))
    assert status == 200
    assert server.posts[-1] == ("/bcl", "application/x-www-form-urlencoded", b"logout_token=a.b.c")


def test_loopback_is_refused_without_the_local_flag(server: DocumentServer) -> None:
    before = len(server.posts)
    error = failure(server, server.url("/bcl"), allow_loopback=False)
    assert (error.internal, error.retry) == ("127.0.0.1 -> 127.0.0.1 (loopback)", False)
    assert len(server.posts) == before


@pytest.mark.parametrize("address", ["10.1.2.3", "169.254.169.254", "fd00:ec2::254", "192.168.1.1"])
def test_a_private_address_is_refused_before_any_connection(server: DocumentServer, address: str) -> None:
    before = len(server.posts)
    error = failure(server, server.url("/bcl", host="client.example"), resolver=lambda h, p: [address],
                    allow_loopback=False)
    assert error.retry is False and address in error.internal
    assert len(server.posts) == before


@pytest.mark.parametrize("url", ["http://client.example/bcl", "https://user:pw@client.example/bcl",
                                 "https://client.example/bcl#frag", "ftp://client.example/bcl"])
def test_urls_that_are_not_plain_https_are_refused(url: str) -> None:
    with pytest.raises(Failed) as caught:
        target(url, allow_loopback=True)
    assert caught.value.retry is False


def test_http_is_allowed_to_loopback_only_with_the_local_flag() -> None:
    assert target("http://127.0.0.1:8765/bcl", allow_loopback=True).tls is False
    with pytest.raises(Failed):
        target("http://127.0.0.1:8765/bcl")


def test_a_5xx_may_be_retried_a_4xx_not_and_a_redirect_is_not_followed(server: DocumentServer) -> None:
    server.post_answers["/flaky"] = [Route(b"", 503, {}), Route(b"", 400, {}), Route(b"", 302, {"Location": "/x"})]
    first, second, third = (failure(server, server.url("/flaky")) for _ in range(3))
    assert (first.internal, first.retry) == ("it answered HTTP 503", True)
    assert (second.internal, second.retry) == ("it answered HTTP 400", False)
    assert (third.internal, third.retry) == ("it answered HTTP 302", False)


@pytest.mark.slow
def test_a_slow_receiver_is_cut_at_the_total_deadline(server: DocumentServer) -> None:
    server.post_answers["/slow"] = [Route(b"x" * 512, 200, {"Content-Type": "text/plain"}, drip=0.2)]
    started = time.monotonic()
    error = failure(server, server.url("/slow"), limits=Limits(connect=1.0, read=1.0, total=1.5, max_bytes=4096))
    assert time.monotonic() - started < 2.5
    assert (error.internal, error.retry) == ("it did not answer in time", True)


def test_a_huge_answer_is_cut_at_the_size_bound(server: DocumentServer) -> None:
    server.post_answers["/huge"] = [Route(b"x" * 200_000, 200, {"Content-Type": "text/plain"})]
    error = failure(server, server.url("/huge"))
    assert (error.internal, error.retry) == ("its answer was too large", False)
