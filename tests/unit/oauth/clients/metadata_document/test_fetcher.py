"""The metadata fetcher against a real HTTPS server on 127.0.0.1 (draft-ietf-oauth-client-id-metadata-document-02 5, 8.6, 8.7)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest

from authgate.clients.errors import MetadataRefused
from authgate.oauth.clients.metadata_document import client_id_url
from authgate.oauth.clients.metadata_document.fetcher import DEFAULT_LIMITS, Limits, fetch
from tests.document_server import DocumentServer, Route, document_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


def loopback(host: str, port: int) -> list[str]:
    """A resolver that answers 127.0.0.1 for every name (the test's DNS)."""
    return ["127.0.0.1"]


def refused(url: str, server: DocumentServer, code: str, **kwargs: object) -> MetadataRefused:
    with pytest.raises(MetadataRefused) as caught:
        fetch(client_id_url.parse(url), resolver=kwargs.pop("resolver", loopback),  # type: ignore[arg-type]
              allow_loopback=bool(kwargs.pop("allow_loopback", True)), context=server.client_context(),
              **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == code, caught.value
    return caught.value


def test_a_document_is_fetched_from_the_checked_address_with_the_host_name_verified(server: DocumentServer) -> None:
    url = server.document("/agent.json", host="client.example")
    got = fetch(client_id_url.parse(url), resolver=loopback, allow_loopback=True, context=server.client_context())
    assert json.loads(got.body)["client_id"] == url
    assert got.cache_control == "max-age=600"
    assert got.address == "127.0.0.1"
    # The request named the URL's host (and port), though the connection went to the address.
    assert server.requests[-1] == ("/agent.json", f"client.example:{server.port}")


def test_loopback_is_refused_without_the_local_flag(server: DocumentServer) -> None:
    url = server.document("/agent.json")
    error = refused(url, server, "client_metadata_address_refused", allow_loopback=False)
    assert error.detail == (f"The client's metadata document at {url} could not be fetched: its host is not on an "
                            "address authgate fetches from.")
    assert error.internal == "127.0.0.1 -> 127.0.0.1 (loopback)"


@pytest.mark.parametrize("address", ["10.1.2.3", "169.254.169.254", "fd00:ec2::254", "::ffff:127.0.0.1",
                                     "100.64.0.1", "64:ff9b::a9fe:a9fe", "0.0.0.0", "::", "224.0.0.1", "fe80::1"])
def test_special_use_answers_are_refused_before_any_connection(server: DocumentServer, address: str) -> None:
    url = server.document("/agent.json", host="client.example")
    before = len(server.requests)
    refused(url, server, "client_metadata_address_refused", resolver=lambda h, p: [address], allow_loopback=False)
    assert len(server.requests) == before


def test_dns_that_answers_public_then_private_is_pinned_to_the_first_answer(server: DocumentServer) -> None:
    """The name is resolved once; a rebinding resolver gets no second question before the connect."""
    url = server.document("/agent.json", host="rebind.example")
    answers = iter([["127.0.0.1"], ["10.0.0.1"]])
    asked: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        asked.append(host)
        return next(answers)

    got = fetch(client_id_url.parse(url), resolver=rebinding, allow_loopback=True, context=server.client_context())
    assert got.address == "127.0.0.1" and asked == ["rebind.example"]


def test_a_name_that_also_resolves_inside_is_refused(server: DocumentServer) -> None:
    url = server.document("/agent.json", host="rebind.example")
    refused(url, server, "client_metadata_address_refused", resolver=lambda h, p: ["127.0.0.1", "10.0.0.1"])


def test_a_redirect_is_not_followed(server: DocumentServer) -> None:
    server.routes["/moved"] = Route(b"", 302, {"Location": "https://169.254.169.254/latest/meta-data/"})
    error = refused(server.url("/moved"), server, "client_metadata_redirected")
    assert error.detail == (f"The client's metadata document at {server.url('/moved')} could not be fetched: "
                            "authgate does not follow redirects.")
    assert error.internal == "it answered HTTP 302" and server.requests[-1][0] == "/moved"


def test_a_status_other_than_200_is_unreachable(server: DocumentServer) -> None:
    error = refused(server.url("/missing"), server, "client_metadata_unreachable")
    assert error.detail == f"The client's metadata document at {server.url('/missing')} could not be fetched."
    assert error.internal == "it answered HTTP 404, not 200"


def test_the_content_type_must_be_json(server: DocumentServer) -> None:
    server.routes["/html"] = Route(b"<html></html>", headers={"Content-Type": "text/html"})
    error = refused(server.url("/html"), server, "client_metadata_invalid")
    assert error.detail == (f"The client's metadata document at {server.url('/html')} must be served as "
                            "application/json.")
    assert error.internal == "served as text/html"
    server.routes["/vnd"] = Route(b"{}", headers={"Content-Type": "application/vnd.agent+json; charset=utf-8"})
    got = fetch(client_id_url.parse(server.url("/vnd")), resolver=loopback, allow_loopback=True,
                context=server.client_context())
    assert got.body == b"{}"


def test_a_document_over_5_kb_is_refused_by_its_length_and_while_reading(server: DocumentServer) -> None:
    server.routes["/big"] = Route(b" " * 5121)
    refused(server.url("/big"), server, "client_metadata_too_large")
    server.routes["/exact"] = Route(b"{" + b" " * 5118 + b"}")
    assert len(fetch(client_id_url.parse(server.url("/exact")), resolver=loopback, allow_loopback=True,
                     context=server.client_context()).body) == 5120


def test_a_body_without_content_length_is_cut_at_the_cap(server: DocumentServer) -> None:
    server.routes["/unbounded"] = Route(b"x" * 64_000, length=False)
    refused(server.url("/unbounded"), server, "client_metadata_too_large")


@pytest.mark.slow
def test_a_slow_drip_is_cut_off_by_the_total_deadline(server: DocumentServer) -> None:
    server.routes["/slow"] = Route(b"{" + b" " * 200 + b"}", drip=0.2)
    start = time.monotonic()
    error = refused(server.url("/slow"), server, "client_metadata_unreachable",
                    limits=Limits(connect=1, read=1, total=0.8))
    assert time.monotonic() - start < 1.5
    assert (error.detail, error.internal) == (
        f"The client's metadata document at {server.url('/slow')} could not be fetched.", "it did not answer in time")


# The total is a bound on the whole fetch, enforced at the socket: each of http.client's many small
# reads of a status line and headers, or of a chunked body, gets only what is left of it.
DRIP_LIMITS = Limits(connect=1, read=1, total=1.0)
DRIP_MARGIN = 1.5  # generous: a loaded machine; what matters is that it is not 10 s or more


@pytest.mark.slow
def test_headers_dripped_a_byte_at_a_time_end_at_the_total_deadline(server: DocumentServer) -> None:
    """Each byte comes well within the per-read bound: only a deadline over every read ends it."""
    server.routes["/drip-headers"] = Route(b"{}", header_drip=0.05,
                                           headers={"Content-Type": "application/json", "X-Pad": "p" * 200})
    start = time.monotonic()
    error = refused(server.url("/drip-headers"), server, "client_metadata_unreachable", limits=DRIP_LIMITS)
    assert time.monotonic() - start < DRIP_LIMITS.total + DRIP_MARGIN
    assert (error.detail, error.internal) == (
        f"The client's metadata document at {server.url('/drip-headers')} could not be fetched.",
        "it did not answer in time")


@pytest.mark.slow
def test_a_chunked_body_dripped_a_byte_at_a_time_ends_at_the_total_deadline(server: DocumentServer) -> None:
    """A chunk's size line may carry extensions (RFC 9112 7.1.1): sent a byte at a time, one line
    is one read1() of many small reads."""
    server.routes["/drip-chunks"] = Route(b"{}", chunked=True, drip=0.02, chunk_extension="e=" + "x" * 400)
    start = time.monotonic()
    error = refused(server.url("/drip-chunks"), server, "client_metadata_unreachable", limits=DRIP_LIMITS)
    assert time.monotonic() - start < DRIP_LIMITS.total + DRIP_MARGIN
    assert (error.detail, error.internal) == (
        f"The client's metadata document at {server.url('/drip-chunks')} could not be fetched.",
        "it did not answer in time")


def test_a_chunked_body_in_time_is_read_whole(server: DocumentServer) -> None:
    server.routes["/chunks"] = Route(b'{"a": "' + b"x" * 100 + b'"}', chunked=True, chunk_extension="e=1")
    got = fetch(client_id_url.parse(server.url("/chunks")), resolver=loopback, allow_loopback=True,
                context=server.client_context())
    assert json.loads(got.body) == {"a": "x" * 100}


@pytest.mark.slow
def test_the_default_total_of_4_seconds_bounds_a_header_drip(server: DocumentServer) -> None:
    """The deployed limits (DEFAULT_LIMITS): the drip would take about 15 s; the fetch ends at 4."""
    server.routes["/drip-default"] = Route(b"{}", header_drip=0.1,
                                           headers={"Content-Type": "application/json", "X-Pad": "p" * 100})
    start = time.monotonic()
    refused(server.url("/drip-default"), server, "client_metadata_unreachable")
    assert time.monotonic() - start < DEFAULT_LIMITS.total + DRIP_MARGIN


@pytest.mark.slow
def test_a_resolver_that_never_answers_ends_at_the_total_deadline(server: DocumentServer) -> None:
    def hanging(host: str, port: int) -> list[str]:
        time.sleep(5)
        return ["127.0.0.1"]

    start = time.monotonic()
    error = refused(server.url("/agent.json"), server, "client_metadata_unreachable", resolver=hanging,
                    limits=DRIP_LIMITS)
    assert time.monotonic() - start < DRIP_LIMITS.total + DRIP_MARGIN
    assert error.internal == "its host did not resolve in time"


def test_headers_past_the_wire_budget_are_refused_as_too_large(server: DocumentServer) -> None:
    from authgate.oauth.clients.metadata_document.fetcher import WIRE_BYTES

    headers = {"Content-Type": "application/json"} | {f"X-Pad-{i}": "p" * 1000 for i in range(WIRE_BYTES // 1000)}
    server.routes["/fat-headers"] = Route(b"{}", headers=headers)
    error = refused(server.url("/fat-headers"), server, "client_metadata_too_large")
    assert error.detail == (f"The client's metadata document at {server.url('/fat-headers')} could not be fetched: "
                            "it is larger than 5120 bytes.")


def test_a_certificate_for_another_name_fails_tls(server: DocumentServer) -> None:
    url = f"https://other.example:{server.port}/agent.json"
    error = refused(url, server, "client_metadata_unreachable")
    assert error.detail == f"The client's metadata document at {url} could not be fetched."
    assert error.internal.startswith("TLS failed (")


def test_a_host_that_does_not_resolve_is_unreachable(server: DocumentServer) -> None:
    def nxdomain(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    error = refused("https://nowhere.invalid/agent.json", server, "client_metadata_unreachable", resolver=nxdomain)
    assert (error.detail, error.internal) == (
        "The client's metadata document at https://nowhere.invalid/agent.json could not be fetched.",
        "its host does not resolve (gaierror)")


def test_a_closed_port_is_unreachable(server: DocumentServer) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    error = refused(f"https://127.0.0.1:{port}/agent.json", server, "client_metadata_unreachable")
    assert error.detail == f"The client's metadata document at https://127.0.0.1:{port}/agent.json could not be fetched."
    assert error.internal == "connection failed (ConnectionRefusedError)"
