"""RFC 9112 message framing at `authgate serve`, over raw sockets (no HTTP client smooths anything).

Every ambiguous or malformed message is refused with a status line and the connection is
closed, so nothing after it on the wire is ever read as a request (request smuggling); a
connection that stalls is closed; a client that goes away leaves no traceback. The stack runs
with 2 s timeouts so the stall cases finish quickly.
"""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.contract import check_response
from tests.e2e.conftest import LocalStack, start_stack, stop_stack

pytestmark = pytest.mark.e2e

TIMEOUT = 2.0  # --idle-timeout and --read-timeout of this module's stack
HOST = b"Host: 127.0.0.1\r\n"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    running = start_stack(tmp_path_factory.mktemp("framing"), "--idle-timeout", str(TIMEOUT),
                          "--read-timeout", str(TIMEOUT))
    try:
        yield running
    finally:
        stop_stack(running)


@dataclass
class Response:
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        found = [v for k, v in self.headers if k.lower() == name.lower()]
        return found[-1] if found else None

    def problem(self) -> dict[str, object]:
        """The problem+json body, checked against the error contract."""
        check_response(self.status, self.headers, self.body)
        assert self.header("content-type") == "application/problem+json"
        return json.loads(self.body)


@dataclass
class Exchange:
    responses: list[Response] = field(default_factory=list)
    closed: bool = False      # the server closed the connection
    seconds: float = 0.0      # until it closed (or until we stopped waiting)
    rest: bytes = b""         # bytes that were not a complete response


def exchange(stack: LocalStack, data: bytes, *, wait: float = 5.0, head: bool = False) -> Exchange:
    """Send `data` on a fresh connection, read until the server closes it or `wait` passes."""
    started = time.monotonic()
    raw = b""
    result = Exchange()
    with socket.create_connection(("127.0.0.1", stack.port), timeout=wait) as sock:
        sock.sendall(data)
        try:
            while chunk := sock.recv(65536):
                raw += chunk
            result.closed = True
        except TimeoutError:
            pass
        except ConnectionResetError:
            result.closed = True
    result.seconds = time.monotonic() - started
    result.responses, result.rest = parse(raw, head=head)
    return result


def parse(raw: bytes, *, head: bool = False) -> tuple[list[Response], bytes]:
    """Responses framed by Content-Length (all the emulator sends); HEAD responses have no body."""
    responses = []
    while b"\r\n\r\n" in raw:
        block, raw = raw.split(b"\r\n\r\n", 1)
        status_line, *lines = block.decode("latin-1").split("\r\n")
        version, status, reason = (status_line.split(" ", 2) + [""])[:3]
        assert version == "HTTP/1.1", status_line
        headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines]
        length = 0 if head else int({k.lower(): v for k, v in headers}.get("content-length", "0"))
        body, raw = raw[:length], raw[length:]
        responses.append(Response(int(status), reason, headers, body))  # type: ignore[arg-type]
    return responses, raw


def served(stack: LocalStack, path: str) -> bool:
    """Whether the emulator logged a request for `path` (it logs every request it answers)."""
    time.sleep(0.3)
    return any(json.loads(line).get("path") == path for line in stack.log(5000).splitlines()
               if line.startswith("{") and '"authgate-emulator"' in line)


def smuggled() -> tuple[str, bytes]:
    path = f"/smuggled-{uuid.uuid4().hex}"
    return path, f"GET {path} HTTP/1.1\r\n".encode() + HOST + b"\r\n"


def assert_refused(result: Exchange, status: int = 400) -> None:
    """One response with `status`, then the server closed the connection."""
    assert [r.status for r in result.responses] == [status]
    assert result.closed and result.seconds < TIMEOUT, "the connection must close right after the refusal"
    assert result.rest == b""


# ------------------------------------------------------------------ ambiguous framing (smuggling)

@pytest.mark.parametrize("fields", [
    b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: chunked\r\nContent-Length: 4\r\n",
], ids=["CL-then-TE", "TE-then-CL"])
def test_content_length_and_transfer_encoding_together_is_400_and_close(stack: LocalStack, fields: bytes) -> None:
    """RFC 9112 6.1: ambiguous framing; what follows the chunked body is never a request."""
    path, hidden = smuggled()
    result = exchange(stack, b"POST /oauth/token HTTP/1.1\r\n" + HOST + fields + b"\r\n0\r\n\r\n" + hidden)
    assert_refused(result)
    problem = result.responses[0].problem()
    assert (problem["status"], problem["code"]) == (400, "invalid_request")
    assert problem["detail"] == ("The request has both Content-Length and Transfer-Encoding "
                                 "(ambiguous framing, RFC 9112 6.1).")
    # A gateway response: its id is API Gateway's own header (no x-request-id can be mapped there).
    assert result.responses[0].header("x-amz-apigw-id") == problem["traceId"]
    assert result.responses[0].header("x-request-id") is None
    assert not served(stack, path)


@pytest.mark.parametrize("fields", [
    b"Content-Length: 0\r\nContent-Length: 41\r\n",
    b"Content-Length: 0, 41\r\n",
], ids=["two-fields", "list"])
def test_two_different_content_lengths_is_400_and_close(stack: LocalStack, fields: bytes) -> None:
    """RFC 9112 6.3 (5): differing Content-Length values are an unrecoverable framing error."""
    path, hidden = smuggled()
    assert_refused(exchange(stack, b"POST /oauth/token HTTP/1.1\r\n" + HOST + fields + b"\r\n" + hidden))
    assert not served(stack, path)


def test_bare_cr_in_a_field_is_400_and_close(stack: LocalStack) -> None:
    """RFC 9112 2.2: a bare CR must be rejected (or replaced); here it is rejected."""
    assert_refused(exchange(stack, b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST + b"X-A: a\rb\r\n\r\n"))


def test_request_line_without_a_version_gets_a_status_line_and_close(stack: LocalStack) -> None:
    """RFC 9112 3: HTTP/0.9 is not spoken; the answer is still a proper HTTP/1.1 status line."""
    assert_refused(exchange(stack, b"GET /.well-known/jwks.json\r\n\r\n"))


def test_invalid_chunk_size_is_400_and_close(stack: LocalStack) -> None:
    path, hidden = smuggled()
    result = exchange(stack, b"POST /oauth/token HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\n"
                      b"ZZ\r\nabc\r\n0\r\n\r\n" + hidden)
    assert_refused(result)
    assert not served(stack, path)


def test_unknown_transfer_coding_is_501_and_close(stack: LocalStack) -> None:
    """RFC 9112 6.1: a transfer coding the server does not understand is 501."""
    assert_refused(exchange(stack, b"POST /oauth/token HTTP/1.1\r\n" + HOST +
                            b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"), 501)


def test_oversized_head_is_431_and_close(stack: LocalStack) -> None:
    assert_refused(exchange(stack, b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST +
                            b"X-Big: " + b"a" * 100_000 + b"\r\n\r\n"), 431)


def test_whitespace_before_a_field_colon_is_400_and_close(stack: LocalStack) -> None:
    """RFC 9112 5.1: MUST reject (a proxy might read the name differently)."""
    assert_refused(exchange(stack, b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST + b"X-A : b\r\n\r\n"))


def test_obs_fold_is_unfolded_and_the_connection_stays_in_step(stack: LocalStack) -> None:
    """RFC 9112 5.2 lets a server replace obs-fold with SP; the next request on the connection
    is still read at the right place."""
    folded = b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST + b"X-Note: a\r\n b\r\n\r\n"
    then = b"GET /problems/not_found HTTP/1.1\r\n" + HOST + b"Accept: application/json\r\nConnection: close\r\n\r\n"
    result = exchange(stack, folded + then)
    assert [r.status for r in result.responses] == [200, 200]
    assert json.loads(result.responses[0].body)["keys"]
    assert json.loads(result.responses[1].body)["code"] == "not_found"
    assert result.closed


# ------------------------------------------------------------------ methods and targets

def test_head_is_answered_without_a_body_and_keeps_the_connection_usable(stack: LocalStack) -> None:
    """ANY covers HEAD, so API Gateway hands it to the function (jwks: no HEAD route -> 405 with Allow)."""
    data = (b"HEAD /.well-known/jwks.json HTTP/1.1\r\n" + HOST + b"\r\n" +
            b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", stack.port), timeout=5) as sock:
        sock.sendall(data)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head_block, rest = raw.split(b"\r\n\r\n", 1)
    head = parse(head_block + b"\r\n\r\n", head=True)[0][0]
    assert head.status == 405 and head.header("allow") == "GET, OPTIONS"
    assert head.header("content-type") == "application/problem+json"
    get, left = parse(rest)
    assert [r.status for r in get] == [200] and left == b"", "the HEAD response carried no body"
    assert json.loads(get[0].body)["keys"]


@pytest.mark.parametrize("method", ["BREW", "PROPFIND", "CONNECTX"])
def test_a_method_api_gateway_does_not_know_matches_no_route(stack: LocalStack, method: str) -> None:
    """ANY stands for the seven REST methods; anything else is MISSING_AUTHENTICATION_TOKEN (404 here)."""
    result = exchange(stack, f"{method} /oauth/token HTTP/1.1\r\n".encode() + HOST + b"Connection: close\r\n\r\n")
    response = result.responses[0]
    problem = response.problem()
    assert (response.status, problem["code"]) == (404, "not_found")
    assert response.header("allow") is None, "no Allow that names methods the route does not have"


def test_non_ascii_request_target_is_400_and_close(stack: LocalStack) -> None:
    """RFC 9112 3.2 / RFC 3986: a request-target is ASCII; raw UTF-8 bytes are refused, not garbled."""
    assert_refused(exchange(stack, "GET /café HTTP/1.1\r\n".encode() + HOST + b"\r\n"))


def test_percent_encoded_path_is_kept_as_sent(stack: LocalStack) -> None:
    result = exchange(stack, b"GET /caf%C3%A9 HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")
    problem = result.responses[0].problem()
    assert (problem["status"], problem["code"]) == (404, "not_found")
    assert problem["detail"] == "No route for GET /caf%C3%A9."


def test_pipelined_requests_are_answered_in_order(stack: LocalStack) -> None:
    one = b"GET /problems/not_found HTTP/1.1\r\n" + HOST + b"Accept: application/json\r\n\r\n"
    two = b"GET /problems/invalid_request HTTP/1.1\r\n" + HOST + b"Accept: application/json\r\nConnection: close\r\n\r\n"
    result = exchange(stack, one + two)
    assert [json.loads(r.body)["code"] for r in result.responses] == ["not_found", "invalid_request"]


# ------------------------------------------------------------------ clients that go away or stall

def test_a_client_that_disconnects_early_leaves_no_traceback(stack: LocalStack) -> None:
    before = stack.log(100_000).count("Traceback")
    for data in (b"POST /oauth/token HTTP/1.1\r\n" + HOST + b"Content-Length: 100\r\n\r\nabc",  # mid-body
                 b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST + b"\r\n",                    # before the answer
                 b"GET /.well-known/jwks.json HTTP/1.1\r\nHo"):                                  # mid-head
        with socket.create_connection(("127.0.0.1", stack.port), timeout=5) as sock:
            sock.sendall(data)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
    time.sleep(1.0)
    assert stack.log(100_000).count("Traceback") == before
    after = exchange(stack, b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")
    assert [r.status for r in after.responses] == [200]


@pytest.mark.parametrize("data", [
    b"",                                                      # connected, never sent a byte
    b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST,        # head never finished
], ids=["idle", "stalled-head"])
def test_a_stalled_connection_is_closed_after_the_idle_timeout(stack: LocalStack, data: bytes) -> None:
    result = exchange(stack, data, wait=TIMEOUT * 5)
    assert result.closed, f"still open after {result.seconds:.1f} s"
    assert TIMEOUT * 0.8 <= result.seconds < TIMEOUT * 3
    assert result.responses == []


def test_a_head_trickled_line_by_line_is_cut_off_too(stack: LocalStack) -> None:
    """The idle timer runs until the head is complete: fresh bytes do not extend it (slowloris)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", stack.port), timeout=TIMEOUT * 5) as sock:
        sock.sendall(b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST)
        closed_after = None
        for i in range(int(TIMEOUT * 5 / 0.25)):
            time.sleep(0.25)
            try:
                sock.sendall(f"X-Line-{i}: y\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                closed_after = time.monotonic() - started
                break
            sock.setblocking(False)
            try:
                if sock.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except BlockingIOError:
                pass
            finally:
                sock.setblocking(True)
    assert closed_after is not None and closed_after < TIMEOUT * 3, "a trickled head kept the connection"


def test_a_stalled_body_is_closed_after_the_read_timeout(stack: LocalStack) -> None:
    result = exchange(stack, b"POST /oauth/token HTTP/1.1\r\n" + HOST +
                      b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant",
                      wait=TIMEOUT * 5)
    assert result.closed, f"still open after {result.seconds:.1f} s"
    assert result.seconds < TIMEOUT * 3
    assert result.responses == []


def test_log_has_one_json_line_per_request_and_nothing_else_from_the_server(stack: LocalStack, tmp_path: Path) -> None:
    """The emulator's own output is JSON lines only (no second access-log format)."""
    marker = f"one-line-{uuid.uuid4().hex}"
    exchange(stack, b"GET /.well-known/jwks.json HTTP/1.1\r\n" + HOST +
             f"x-request-id: {marker}\r\nConnection: close\r\n\r\n".encode())
    time.sleep(0.3)
    mine = [line for line in stack.log(100_000).splitlines() if marker in line and '"authgate-emulator"' in line]
    assert len(mine) == 1
    banner_end = stack.log(100_000).split("\n\n")[-1]
    non_json = [line for line in banner_end.splitlines() if line.strip() and not line.startswith("{")]
    assert non_json == [], f"lines that are not JSON: {non_json[:3]}"
