"""The Shared Signals transmitter through its handlers (OpenID Shared Signals Framework 1.0 7, 8; RFC 8935, 8936):
whole responses of the configuration document, the stream management API and polls; SETs verified with PyJWT."""

from __future__ import annotations

from typing import Any

import pytest

from tests.demo import ISSUER
from tests.functional.ssf_support import (
    ACCOUNT_DISABLED,
    ALICE,
    CREDENTIAL_CHANGE,
    POLL,
    PUSH,
    SESSION_REVOKED,
    SUPPORTED,
    VERIFICATION,
    answer,
    deliver_queued,
    queued,
    receiver_token,
    ssf_call,
    verified_set,
)

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
JSON = {"Content-Type": "application/json", **NO_STORE}
PROBLEM = {"Content-Type": "application/problem+json", "Vary": "Accept"}


def config(stream_id: str, *, delivery: dict[str, str] | None = None, requested: list[str] | None = None,
           **extra: Any) -> dict[str, Any]:
    """The configuration the management API answers for demo-service's stream."""
    body: dict[str, Any] = {"stream_id": stream_id, "iss": ISSUER, "aud": "demo-service",
                            "delivery": delivery or {"method": POLL, "endpoint_url": f"{ISSUER}/ssf/poll"},
                            "events_supported": SUPPORTED}
    if requested is not None:
        body["events_requested"] = requested
    body["events_delivered"] = [uri for uri in SUPPORTED if uri in (requested or [])]
    body["min_verification_interval"] = 10
    body.update(extra)
    return body


def problem(status: int, code: str, title: str, detail: str, instance: str = "/ssf/streams",
            **extra: Any) -> dict[str, Any]:
    return {"type": f"{ISSUER}/problems/{code}", "title": title, "status": status, "detail": detail,
            "instance": instance, "code": code, **extra}


def created(invoke: Any, body: dict[str, Any] | None = None) -> str:
    status, _, config_ = answer(ssf_call(invoke, "POST", "/ssf/streams", body or {"events_requested": SUPPORTED}))
    assert status == 201
    return str(config_["stream_id"])


def without_trace(body: dict[str, Any]) -> dict[str, Any]:
    assert body.pop("traceId")
    return body


def test_the_transmitter_configuration_document(aws: None, invoke: Any) -> None:
    """SSF 1.0 7.1, 7.2.3: 200 application/json, every endpoint https-able under the issuer, OAuth authorization."""
    assert answer(ssf_call(invoke, "GET", "/.well-known/ssf-configuration", token=None)) == (
        200, {"Content-Type": "application/json", "Cache-Control": "public, max-age=3600"}, {
            "spec_version": "1_0", "issuer": ISSUER, "jwks_uri": f"{ISSUER}/.well-known/jwks.json",
            "delivery_methods_supported": [PUSH, POLL],
            "configuration_endpoint": f"{ISSUER}/ssf/streams", "status_endpoint": f"{ISSUER}/ssf/status",
            "add_subject_endpoint": f"{ISSUER}/ssf/subjects/add",
            "remove_subject_endpoint": f"{ISSUER}/ssf/subjects/remove",
            "verification_endpoint": f"{ISSUER}/ssf/verify",
            "authorization_schemes": [{"spec_urn": "urn:ietf:rfc:6749"}], "default_subjects": "ALL"})


def test_a_receiver_creates_reads_updates_replaces_and_deletes_its_stream(demo: Any, invoke: Any) -> None:
    push = {"method": PUSH, "endpoint_url": "https://receiver.example/events", "authorization_header": "Bearer rx"}
    status, headers, body = answer(ssf_call(invoke, "POST", "/ssf/streams", {
        "delivery": push, "events_requested": [SESSION_REVOKED, "urn:example:unknown"], "description": "RP A"}))
    stream_id = body["stream_id"]
    assert len(stream_id) == 32
    expected = config(stream_id, delivery=push, requested=[SESSION_REVOKED, "urn:example:unknown"],
                      description="RP A")
    assert (status, headers, body) == (201, JSON, expected)
    assert answer(ssf_call(invoke, "GET", "/ssf/streams", query=f"stream_id={stream_id}")) == (200, JSON, expected)
    assert answer(ssf_call(invoke, "GET", "/ssf/streams")) == (200, JSON, [expected])

    # PATCH (8.1.1.3): what is present changes, the rest stays.
    patched = config(stream_id, delivery=push, requested=SUPPORTED, description="RP A")
    assert answer(ssf_call(invoke, "PATCH", "/ssf/streams", {"stream_id": stream_id, "events_requested": SUPPORTED,
                                                              "iss": ISSUER, "aud": "demo-service"})) == (
        200, JSON, patched)
    # PUT (8.1.1.4): a receiver-supplied property left out is removed; no delivery is poll.
    assert answer(ssf_call(invoke, "PUT", "/ssf/streams", {"stream_id": stream_id, "events_requested": SUPPORTED})) == (
        200, JSON, config(stream_id, requested=SUPPORTED))
    # DELETE (8.1.1.5): 204, and the stream is gone.
    assert answer(ssf_call(invoke, "DELETE", "/ssf/streams", query=f"stream_id={stream_id}")) == (204, NO_STORE, None)
    assert answer(ssf_call(invoke, "GET", "/ssf/streams")) == (200, JSON, [])


def test_one_stream_per_receiver(demo: Any, invoke: Any) -> None:
    """SSF 1.0 8.1.1.1: a transmitter that does not allow a second stream answers 409."""
    created(invoke)
    status, headers, body = answer(ssf_call(invoke, "POST", "/ssf/streams", {}))
    assert (status, headers, without_trace(body)) == (409, PROBLEM, problem(
        409, "stream_exists", "Stream already exists",
        "This receiver already has a stream; read it, update or replace it, or delete it first."))


def test_another_receivers_stream_is_not_found(demo: Any, invoke: Any) -> None:
    """SSF 1.0 8: only the receiver a stream belongs to sees it; another's stream_id is 404 like none."""
    stream_id = created(invoke)
    other = receiver_token("demo-reader")
    assert answer(ssf_call(invoke, "GET", "/ssf/streams", token=other)) == (200, JSON, [])
    for method, path, query, body in (("GET", "/ssf/streams", f"stream_id={stream_id}", None),
                                      ("DELETE", "/ssf/streams", f"stream_id={stream_id}", None),
                                      ("GET", "/ssf/status", f"stream_id={stream_id}", None),
                                      ("POST", "/ssf/verify", "", {"stream_id": stream_id})):
        status, headers, problem_ = answer(ssf_call(invoke, method, path, body, token=other, query=query))
        assert (status, headers, without_trace(problem_)) == (404, PROBLEM, problem(
            404, "stream_not_found", "Stream not found", f"This receiver has no stream {stream_id!r}.", path)), (
            method, path)


@pytest.mark.parametrize(("token", "status", "challenge", "code", "detail"), [
    (None, 401, 'Bearer realm="api"', "unauthenticated",
     "The request carries no credentials; send Authorization: Bearer <token>."),
    ("charges", 401, ('Bearer realm="api", error="invalid_token", error_description="The token is not meant for this '
                     'resource (aud)."'), "invalid_token", "The token is not meant for this resource (aud)."),
    ("scope", 403, ('Bearer realm="api", error="insufficient_scope", error_description="The access token lacks the '
                   'scope ssf:manage.", scope="ssf:manage"'), "insufficient_scope",
     "The access token lacks the scope ssf:manage."),
])
def test_the_management_api_asks_for_an_ssf_manage_token(demo: Any, invoke: Any, token: str | None, status: int,
                                                          challenge: str, code: str, detail: str) -> None:
    """SSF 1.0 8: 401 without valid authorization, 403 without the scope (RFC 6750 3.1 challenges)."""
    presented = {None: None, "charges": receiver_token(audience=f"{ISSUER}/charges", scope="ssf:manage"),
                 "scope": receiver_token(scope="charges:read")}[token]
    got, headers, body = answer(ssf_call(invoke, "GET", "/ssf/streams", token=presented))
    assert headers.pop("WWW-Authenticate").startswith(challenge)
    assert (got, headers, without_trace(body)["code"], body["detail"]) == (status, PROBLEM, code, detail)


@pytest.mark.parametrize(("body", "pointer", "detail"), [
    ({"delivery": {"method": "urn:example:webhook"}}, "/delivery/method",
     "The delivery method must be urn:ietf:rfc:8935 (push) or urn:ietf:rfc:8936 (poll)."),
    ({"delivery": {"method": PUSH}}, "/delivery/endpoint_url",
     "Push delivery needs the receiver's endpoint_url (SSF 1.0 6.1.1)."),
    ({"delivery": {"method": PUSH, "endpoint_url": "http://receiver.example/events"}}, "/delivery/endpoint_url",
     "endpoint_url must be an https URL without user information or a fragment (not an https URL)."),
    ({"delivery": {"method": PUSH, "endpoint_url": "https://10.0.0.8/events"}}, "/delivery/endpoint_url",
     "endpoint_url points at an address this transmitter never connects to (private)."),
    ({"delivery": {"method": PUSH, "endpoint_url": "https://receiver.example/e", "authorization_header": "a\r\nb"}},
     "/delivery/authorization_header",
     "authorization_header is the value of an HTTP header: printable ASCII, at most 4096 characters."),
    ({"delivery": {"method": POLL, "endpoint_url": "https://receiver.example/poll"}}, "/delivery/endpoint_url",
     f"A poll stream's endpoint_url is the transmitter's: {ISSUER}/ssf/poll (SSF 1.0 6.1.2)."),
    ({"events_requested": "all"}, "/events_requested",
     "events_requested is a list of at most 50 event type URIs."),
])
def test_a_stream_the_transmitter_cannot_serve_is_400(demo: Any, invoke: Any, body: dict[str, Any], pointer: str,
                                                       detail: str) -> None:
    status, headers, got = answer(ssf_call(invoke, "POST", "/ssf/streams", body))
    assert (status, headers, without_trace(got)) == (400, PROBLEM, problem(
        400, "invalid_stream_request", "Invalid stream request", detail, errors=[{"pointer": pointer,
                                                                                  "detail": detail}]))


def test_a_patch_must_not_contradict_the_transmitter(demo: Any, invoke: Any) -> None:
    """SSF 1.0 8.1.1.3: transmitter-supplied properties may be repeated, never changed."""
    stream_id = created(invoke)
    detail = "events_delivered is the transmitter's and does not match this stream's (SSF 1.0 8.1.1.3)."
    status, headers, got = answer(ssf_call(invoke, "PATCH", "/ssf/streams", {
        "stream_id": stream_id, "events_delivered": [SESSION_REVOKED]}))
    assert (status, headers, without_trace(got)) == (400, PROBLEM, problem(
        400, "invalid_stream_request", "Invalid stream request", detail,
        errors=[{"pointer": "/events_delivered", "detail": detail}]))


def test_status_is_read_and_changed(demo: Any, invoke: Any) -> None:
    """SSF 1.0 8.1.2: enabled by default; paused and disabled on the receiver's word, with its reason."""
    stream_id = created(invoke)
    assert answer(ssf_call(invoke, "GET", "/ssf/status", query=f"stream_id={stream_id}")) == (
        200, JSON, {"stream_id": stream_id, "status": "enabled"})
    changed = {"stream_id": stream_id, "status": "paused", "reason": "maintenance"}
    assert answer(ssf_call(invoke, "POST", "/ssf/status", changed)) == (200, JSON, changed)
    assert answer(ssf_call(invoke, "GET", "/ssf/status", query=f"stream_id={stream_id}")) == (200, JSON, changed)
    status, headers, got = answer(ssf_call(invoke, "POST", "/ssf/status", {"stream_id": stream_id, "status": "off"}))
    detail = "status is one of enabled, paused, disabled (SSF 1.0 8.1.2.1)."
    assert (status, headers, without_trace(got)) == (400, PROBLEM, problem(
        400, "invalid_stream_request", "Invalid stream request", detail, "/ssf/status",
        errors=[{"pointer": "/status", "detail": detail}]))


def test_verification_events_are_polled_and_verify_against_the_jwks(demo: Any, invoke: Any) -> None:
    """SSF 1.0 8.1.4: 204, then a SET whose sub_id is the stream and whose state is echoed; RFC 8936 poll and ack."""
    stream_id = created(invoke)
    assert answer(ssf_call(invoke, "POST", "/ssf/verify", {"stream_id": stream_id, "state": "st-1"})) == (
        204, NO_STORE, None)
    assert deliver_queued() == 1
    status, headers, body = answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True}))
    ((jti, token),) = body["sets"].items()
    assert (status, headers, body["moreAvailable"]) == (200, JSON, False)
    header, claims = verified_set(token, "demo-service")
    assert (header["typ"], header["alg"]) == ("secevent+jwt", "RS256")
    assert claims == {"iss": ISSUER, "jti": jti, "iat": claims["iat"], "aud": "demo-service",
                      "sub_id": {"format": "opaque", "id": stream_id}, "events": {VERIFICATION: {"state": "st-1"}}}
    # Not acknowledged: answered again; acknowledged: gone.
    assert answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True}))[2]["sets"] == {jti: token}
    assert answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True, "ack": [jti]})) == (
        200, JSON, {"sets": {}, "moreAvailable": False})


def test_verification_is_limited_to_one_per_interval(demo: Any, invoke: Any, clock: Any) -> None:
    """SSF 1.0 8.1.1 min_verification_interval, 8.1.4.2: sooner is 429 with Retry-After."""
    stream_id = created(invoke)
    assert ssf_call(invoke, "POST", "/ssf/verify", {"stream_id": stream_id})["statusCode"] == 204
    clock.advance(3)
    status, headers, body = answer(ssf_call(invoke, "POST", "/ssf/verify", {"stream_id": stream_id}))
    assert (status, headers, without_trace(body)) == (429, {**PROBLEM, "Retry-After": "7"}, problem(
        429, "rate_limited", "Too many requests",
        "Verification was asked for less than 10 seconds ago; ask again after Retry-After seconds.", "/ssf/verify"))
    clock.advance(7)
    assert ssf_call(invoke, "POST", "/ssf/verify", {"stream_id": stream_id})["statusCode"] == 204


def test_subjects_are_added_and_removed_without_saying_who_exists(demo: Any, invoke: Any) -> None:
    """SSF 1.0 8.1.3.2-3: 200 and 204 for any well-formed subject (9.1: no probing); a malformed one is 400."""
    stream_id = created(invoke)
    for subject in ({"format": "email", "email": "nobody@example.com"},
                    {"format": "iss_sub", "iss": ISSUER, "sub": ALICE},
                    {"format": "complex", "user": {"format": "email", "email": "alice@example.com"}}):
        assert answer(ssf_call(invoke, "POST", "/ssf/subjects/add", {"stream_id": stream_id, "subject": subject,
                                                                     "verified": True})) == (200, NO_STORE, None)
        assert answer(ssf_call(invoke, "POST", "/ssf/subjects/remove", {"stream_id": stream_id,
                                                                        "subject": subject})) == (204, NO_STORE, None)
    status, headers, body = answer(ssf_call(invoke, "POST", "/ssf/subjects/add", {
        "stream_id": stream_id, "subject": {"format": "email", "email": "a@example.com", "phone_number": "+1"}}))
    detail = "The email format has no member 'phone_number' (RFC 9493 3)."
    assert (status, headers, without_trace(body)) == (400, PROBLEM, problem(
        400, "invalid_stream_request", "Invalid stream request", detail, "/ssf/subjects/add",
        errors=[{"pointer": "/subject/phone_number", "detail": detail}]))


def audit_event(action: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"evt-{action}", "time": "2025-06-15T10:00:00Z", "tenant": "demo",
            "actor": {"type": "user", "id": ALICE}, "action": action, "target": {"type": "user", "id": ALICE},
            "outcome": "success", "source_ip": "203.0.113.9", "user_agent": "test", "request_id": "req-1",
            "details": {"username": "alice", "email": "alice@example.com", **extra}}


def polled(invoke: Any) -> list[dict[str, Any]]:
    """The claims of every SET waiting for demo-service's poll, verified, oldest first; acknowledged."""
    deliver_queued()
    sets = answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True}))[2]["sets"]
    ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True, "maxEvents": 0, "ack": list(sets)})
    return [verified_set(token, "demo-service")[1] for token in sets.values()]


def test_audit_events_become_caep_and_risc_sets(demo: Any, invoke: Any) -> None:
    """CAEP 1.0 3.1, 3.3 and RISC 1.0 2.3 claims; sub_id iss_sub (RFC 9493 3.2.3); one txn per cause (SSF 1.0 4.1.9)."""
    from authgate.ssf.signals import on_events

    created(invoke)
    assert on_events([audit_event("user.disabled"), audit_event("factor.enrolled"),
                      audit_event("charge.created")]) == 3
    alice = {"format": "iss_sub", "iss": ISSUER, "sub": ALICE}
    common = {"iss": ISSUER, "aud": "demo-service", "sub_id": alice}
    got = sorted(({k: v for k, v in c.items() if k not in ("jti", "iat")} for c in polled(invoke)),
                 key=lambda c: next(iter(c["events"])))
    assert got == sorted([
        {**common, "txn": "evt-user.disabled", "events": {SESSION_REVOKED: {
            "event_timestamp": 1749981600, "initiating_entity": "user",
            "reason_admin": {"en": "The user's account was disabled."}}}},
        {**common, "txn": "evt-user.disabled", "events": {ACCOUNT_DISABLED: {}}},
        {**common, "txn": "evt-factor.enrolled", "events": {CREDENTIAL_CHANGE: {
            "credential_type": "app", "change_type": "create", "event_timestamp": 1749981600,
            "initiating_entity": "user", "reason_admin": {"en": "An authenticator app was added as a second factor."}}}},
    ], key=lambda c: next(iter(c["events"])))


def test_events_reach_only_streams_that_asked_for_them_and_subjects_not_removed(demo: Any, invoke: Any) -> None:
    from authgate.ssf.signals import on_events

    stream_id = created(invoke, {"events_requested": [SESSION_REVOKED]})
    assert on_events([audit_event("password.changed")]) == 0  # not requested
    other_tenant = {**audit_event("session.ended"), "tenant": "acme"}
    assert on_events([other_tenant]) == 0  # another tenant's user
    ssf_call(invoke, "POST", "/ssf/subjects/remove", {"stream_id": stream_id,
                                                      "subject": {"format": "email", "email": "Alice@Example.com"}})
    assert on_events([audit_event("session.ended")]) == 0  # removed by email, matched case-insensitively
    ssf_call(invoke, "POST", "/ssf/subjects/add", {"stream_id": stream_id,
                                                   "subject": {"format": "email", "email": "alice@example.com"}})
    assert on_events([audit_event("session.ended")]) == 1
    assert [next(iter(c["events"])) for c in polled(invoke)] == [SESSION_REVOKED]


def test_a_paused_stream_holds_its_sets_and_a_disabled_one_drops_them(demo: Any, invoke: Any) -> None:
    """SSF 1.0 8.1.2.1: paused transmits nothing and sends what it held once enabled; disabled holds nothing."""
    from authgate.ssf.signals import on_events

    stream_id = created(invoke)
    ssf_call(invoke, "POST", "/ssf/status", {"stream_id": stream_id, "status": "paused"})
    on_events([audit_event("session.ended")])
    deliver_queued()
    assert answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True}))[2] == {
        "sets": {}, "moreAvailable": False}
    ssf_call(invoke, "POST", "/ssf/status", {"stream_id": stream_id, "status": "enabled"})
    assert [next(iter(c["events"])) for c in polled(invoke)] == [SESSION_REVOKED]
    ssf_call(invoke, "POST", "/ssf/status", {"stream_id": stream_id, "status": "disabled"})
    assert on_events([audit_event("session.ended")]) == 0
    assert queued() == []


def test_a_receiver_without_a_stream_polls_nothing(demo: Any, invoke: Any) -> None:
    status, headers, body = answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True}))
    assert (status, headers, without_trace(body)) == (404, PROBLEM, problem(
        404, "stream_not_found", "Stream not found", "This receiver has no stream; create one first.", "/ssf/poll"))


def test_a_push_stream_is_not_polled(demo: Any, invoke: Any) -> None:
    created(invoke, {"delivery": {"method": PUSH, "endpoint_url": "https://receiver.example/events"}})
    status, headers, body = answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True}))
    detail = "This stream delivers by push (RFC 8935): its SETs are never polled."
    assert (status, headers, without_trace(body)) == (400, PROBLEM, problem(
        400, "invalid_stream_request", "Invalid stream request", detail, "/ssf/poll",
        errors=[{"pointer": "", "detail": detail}]))
