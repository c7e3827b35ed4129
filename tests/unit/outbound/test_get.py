"""Outbound GETs against a real HTTPS server on 127.0.0.1: a 200's body within its bound, nothing else."""

from __future__ import annotations

import pytest

from authgate.outbound.connection import Limits
from authgate.outbound.get import Document, get
from authgate.outbound.post import Failed
from tests.document_server import DocumentServer, Route, loopback

LIMITS = Limits(max_bytes=1024)


def fetch(document_host: DocumentServer, path: str, **kwargs: object) -> Document:
    return get(document_host.url(path, host="tools.example"), accept="application/xml",
               limits=kwargs.pop("limits", LIMITS), resolver=loopback,  # type: ignore[arg-type]
               allow_loopback=bool(kwargs.pop("allow_loopback", True)), context=document_host.client_context())


def failure(document_host: DocumentServer, path: str, **kwargs: object) -> Failed:
    with pytest.raises(Failed) as caught:
        fetch(document_host, path, **kwargs)
    return caught.value


def test_a_200_gives_its_body_and_media_type(document_host: DocumentServer) -> None:
    document_host.routes["/doc"] = Route(b"<x/>", headers={"Content-Type": "Application/XML; charset=utf-8"})
    assert fetch(document_host, "/doc") == Document(b"<x/>", "application/xml")
    assert document_host.requests[-1] == ("/doc", f"tools.example:{document_host.port}")


def test_a_redirect_is_not_followed(document_host: DocumentServer) -> None:
    document_host.routes["/moved"] = Route(b"", 302, {"Location": "/doc"})
    error = failure(document_host, "/moved")
    assert (error.internal, error.retry) == ("it answered HTTP 302, not 200", False)


def test_a_body_over_the_bound_is_refused_even_without_a_length(document_host: DocumentServer) -> None:
    document_host.routes["/long"] = Route(b"x" * 2000, length=False)
    error = failure(document_host, "/long")
    assert (error.internal, error.retry) == ("its body is larger than 1024 bytes", False)


def test_a_declared_length_over_the_bound_is_refused_before_reading(document_host: DocumentServer) -> None:
    document_host.routes["/declared"] = Route(b"x" * 2000)
    assert failure(document_host, "/declared").internal == "its body is larger than 1024 bytes"


def test_a_slow_drip_ends_at_the_total_time(document_host: DocumentServer) -> None:
    document_host.routes["/drip"] = Route(b"x" * 512, drip=0.1)
    error = failure(document_host, "/drip", limits=Limits(connect=1.0, read=1.0, total=0.3, max_bytes=1024))
    assert (error.internal, error.retry) == ("it did not answer in time", True)


def test_loopback_is_refused_without_the_local_flag(document_host: DocumentServer) -> None:
    before = len(document_host.requests)
    error = failure(document_host, "/doc", allow_loopback=False)
    assert (error.internal, error.retry) == ("tools.example -> 127.0.0.1 (loopback)", False)
    assert len(document_host.requests) == before


def test_a_body_allowed_past_the_usual_wire_bound_arrives_whole(document_host: DocumentServer) -> None:
    """WIRE_BYTES (64 KB) bounds every request; one allowed a larger body may receive it and 16 KB more."""
    document_host.routes["/large"] = Route(b"x" * 100_000)
    assert fetch(document_host, "/large", limits=Limits(max_bytes=128 * 1024)).body == b"x" * 100_000
