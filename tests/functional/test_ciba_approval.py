"""Approval by the payer: the approval channel (a signed webhook through the deliveries queue, the outbox) and the
approval page, through the token, deliver and authorize functions with a real HTTPS receiver (the test CA's
server). Whole responses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.demo import ISSUER
from tests.document_server import DocumentServer
from tests.functional.authorize_support import Message, assert_error_page, page_of
from tests.functional.ciba_support import (
    BOB_ID,
    ApprovalBrowser,
    assert_tokens,
    deliver_queued,
    delivered,
    one_time_code,
    poll,
    queued_record,
    start,
    started,
    webhook_of,
)
from tests.functional.person_events_support import BOB, Events, by_person, trail
from tests.functional.token_support import TokenClient, assert_error, aws_calls, claims_of

LINK_INVALID = ("This approval link is unknown, has expired, was already used, or its request was already decided. "
                "Each link works once, until the request expires.")


def verify(invoke: Any, body: bytes, signature: str) -> None:
    """What a receiver does (docs/ciba.md): the detached JWS against the issuer's published JWKS, with PyJWT."""
    import jwt

    from authgate_cli.local.events import HttpRequest, build_event

    request = HttpRequest("GET", "/.well-known/jwks.json", "", [("Host", "127.0.0.1:3000")])
    jwks = json.loads(invoke("jwks", build_event(request, resource="/.well-known/jwks.json", path_params=None))["body"])
    header = jwt.get_unverified_header(signature)
    key = jwt.PyJWKSet.from_dict(jwks)[header["kid"]]
    jwt.api_jws.PyJWS().decode(signature, key.key, algorithms=["RS256", "ES256"], detached_payload=body)


@pytest.mark.slow
def test_bob_approves_with_password_and_one_time_code(hook: DocumentServer, approver: ApprovalBrowser,
                                                      tokens: TokenClient, clock: ManualClock, tmp_path: Path,
                                                      invoke: Any, audit_events: Events) -> None:
    auth_req_id = started(start(tokens, binding_message="Order 1042"))
    payload, body, signature = delivered(hook)
    verify(invoke, body, signature)
    link = payload.pop("approval_url")
    assert link.startswith(f"{ISSUER}/oauth/approve?token=") and auth_req_id not in body.decode()
    payload.pop("id")
    assert payload == {"type": "approval_request", "issuer": ISSUER, "tenant": "demo", "user_id": BOB_ID,
                       "username": "bob", "client_id": "demo-web", "client_name": "Demo web app",
                       "binding_message": "Order 1042", "asked": ["Sign you in with your account", "See your charges"],
                       "expires_at": int(clock()) + 300}
    outbox = [json.loads(line) for line in (tmp_path / "outbox.jsonl").read_text().splitlines()]
    webhook, mail = outbox  # both queued in one call, sent by the deliver function in that order
    assert (webhook["kind"], webhook["url"], webhook["body"]["approval_url"], webhook["headers"], webhook["outcome"],
            webhook["attempt"], webhook["detail"], mail["kind"], mail["to"], mail["subject"]) == (
        "webhook", hook.url("/hook"), link, {"Authgate-Signature": signature}, "delivered", 1, "HTTP 200", "mail",
        "bob@demo.example", "Approve a request from Demo web app")
    assert mail["text"] == ("Demo web app asks you to approve:\n- Sign you in with your account\n- See your charges\n"
                            f"It shows this message: Order 1042\n\nTo approve or deny, open\n\n{link}\n\nThe link "
                            "works once, until the request expires. If you expected nothing, deny it.\n")

    page = page_of(approver.open(link))
    assert (page.status, page.headers["Cache-Control"], page.headers["X-Frame-Options"]) == (200, "no-store", "DENY")
    assert ("Demo web app asks you to approve: Sign you in with your account See your charges The application shows "
            "this message: Order 1042") in page.text()
    clock.advance(10)
    done = approver.decide(page, password="bob-password", code=one_time_code(int(clock())))
    assert (done["statusCode"], page_of(done).messages) == (200, [Message(
        "status", "message success", "Approved. The application can go on; you may close this page.")])
    body_ = assert_tokens(poll(tokens, auth_req_id))
    assert (claims_of(body_["access_token"])["acr"], claims_of(body_["id_token"])["auth_time"]) == ("mfa",
                                                                                                   int(clock()))
    assert_error_page(approver.open(link), "approval_link_invalid", LINK_INVALID)
    signed, approved, issued = trail(audit_events)
    assert (signed, approved) == (
        by_person("signin.succeeded", BOB, "bob", method="password_and_code", acr="mfa", amr=["pwd", "otp", "mfa"],
                  client_id="demo-web"),
        by_person("approval.approved", BOB, "bob", kind="ciba", client_id="demo-web"))  # never the auth_req_id
    assert (issued["action"], issued["target"]) == ("token.issued", {"type": "user", "id": BOB})
    assert auth_req_id not in json.dumps(audit_events())


@pytest.mark.slow
def test_deny_wrong_code_and_a_reused_link(hook: DocumentServer, approver: ApprovalBrowser, tokens: TokenClient,
                                           clock: ManualClock, audit_events: Events) -> None:
    auth_req_id = started(start(tokens))
    link = delivered(hook)[0]["approval_url"]
    page = page_of(approver.open(link))
    wrong = page_of(approver.decide(page, password="bob-password", code="000000"))
    assert (wrong.status, wrong.messages) == (200, [Message("alert", "message error",
                                                             "The password or the code is wrong.")])
    assert_error(poll(tokens, auth_req_id), 400, "authorization_pending",
                 "The user has not yet approved the request; poll again after the interval.")
    denied = approver.decide(wrong, "deny", password="bob-password", code=one_time_code(int(clock())))
    assert page_of(denied).text() == "Done Denied. The application is told; you may close this page."
    clock.advance(5)
    assert_error(poll(tokens, auth_req_id), 400, "access_denied", "The user denied the request.")
    assert_error_page(approver.decide(wrong, password="bob-password", code=one_time_code(int(clock()) + 30)),
                      "approval_link_invalid", LINK_INVALID)
    assert trail(audit_events) == [
        by_person("signin.failed", BOB, "bob", "failure", "second_factor_failed", method="password_and_code"),
        by_person("signin.succeeded", BOB, "bob", method="password_and_code", acr="mfa", amr=["pwd", "otp", "mfa"],
                  client_id="demo-web"),
        by_person("approval.denied", BOB, "bob", kind="ciba", client_id="demo-web")]


def without_form_tokens(result: dict[str, Any]) -> tuple[int, dict[str, str], str]:
    """A page's status, headers and body, its fresh per-page values (request id, CSRF nonce and token) left out."""
    import re

    headers = {k: v for k, v in result["multiValueHeaders"].items() if k != "x-request-id"}
    body = re.sub(r'name="(nonce|csrf)" value="[^"]*"', r'name="\1" value=""', result["body"])
    return result["statusCode"], headers, body


@pytest.mark.slow
def test_wrong_codes_lock_the_factor_and_the_locked_page_answers_alike_whatever_the_password(
        hook: DocumentServer, approver: ApprovalBrowser, tokens: TokenClient, clock: ManualClock) -> None:
    """The password and the code are one attempt of the sign-in (docs/ciba.md): a right password never resets the
    count of wrong codes, which lock the factor at LOCK_AFTER; while it is locked, the right password with the right
    code is refused exactly as a wrong password is (no oracle of the password); once it ends, bob approves."""
    from authgate.users.factor_throttle import LOCK_AFTER, LOCK_SECONDS

    auth_req_id = started(start(tokens))
    page = page_of(approver.open(delivered(hook)[0]["approval_url"]))
    for _ in range(LOCK_AFTER):
        code = one_time_code(int(clock()))
        wrong = page_of(approver.decide(page, password="bob-password", code="000000" if code != "000000" else "1"))
        assert "The password or the code is wrong." in wrong.text()
    clock.advance(60)  # past every wait window of the password's throttle: this is the factor's lock
    right = approver.decide(page, password="bob-password", code=one_time_code(int(clock())))
    wrong_password = approver.decide(page, password="not-bobs-password", code=one_time_code(int(clock())))
    assert without_form_tokens(right) == without_form_tokens(wrong_password)
    assert right["statusCode"] == 200 and "The password or the code is wrong." in page_of(right).text()
    assert_error(poll(tokens, auth_req_id), 400, "authorization_pending",
                 "The user has not yet approved the request; poll again after the interval.")
    clock.advance(LOCK_SECONDS - 60)
    hook.posts.clear()
    hook.post_headers.clear()
    later = started(start(tokens))
    page = page_of(approver.open(delivered(hook)[0]["approval_url"]))
    done = approver.decide(page, password="bob-password", code=one_time_code(int(clock())))
    assert (done["statusCode"], page_of(done).text()) == (
        200, "Done Approved. The application can go on; you may close this page.")
    assert_tokens(poll(tokens, later))


def test_another_signed_in_user_is_refused(hook: DocumentServer, approver: ApprovalBrowser,
                                           tokens: TokenClient) -> None:
    from authgate.stores.sessions import SessionStore

    started(start(tokens))
    link = delivered(hook)[0]["approval_url"]
    secret, _ = SessionStore().create(tenant_id="demo", user_id="usr_demoalice0000000000000", username="alice",
                                      acr="mfa", amr=("pwd", "otp", "mfa"), generation=0)
    approver.cookie = f"authgate_session={secret}"
    assert_error_page(approver.open(link), "approval_wrong_user", "Someone else is signed in in this browser. Only "
                      "the person this request names may approve it: sign out, then open the link again.", 403)


@pytest.mark.slow
def test_a_user_without_a_second_factor_is_told_to_enrol(hook: DocumentServer, approver: ApprovalBrowser,
                                                         tokens: TokenClient) -> None:
    auth_req_id = started(start(tokens, login_hint="alice"))
    page = page_of(approver.open(delivered(hook)[0]["approval_url"]))
    told = page_of(approver.decide(page, password="alice-password", code="123456"))
    assert "Approving needs a second factor, and your account has none yet." in told.text()
    assert_error(poll(tokens, auth_req_id), 400, "authorization_pending",
                 "The user has not yet approved the request; poll again after the interval.")


def test_an_unknown_user_is_never_notified_and_costs_the_same(hook: DocumentServer, tokens: TokenClient,
                                                              tmp_path: Path) -> None:
    """The endpoint queues the same messages (webhook, mail) whoever the hint names and never waits for the receiver
    or for SES: the answer's work and time tell nothing. The deliver function drops nobody's messages: nothing is
    sent, nothing is in the outbox."""
    started(start(tokens, login_hint="alice"))  # the first request fills the caches: count the later ones
    assert deliver_queued() == 2
    hook.posts.clear()
    with aws_calls("sqs") as known, aws_calls("dynamodb") as known_db, aws_calls("sesv2") as known_ses:
        started(start(tokens, login_hint="bob"))
    assert deliver_queued() == 2 and len(hook.posts) == 1
    hook.posts.clear()
    (tmp_path / "outbox.jsonl").unlink()
    with aws_calls("sqs") as unknown, aws_calls("dynamodb") as unknown_db, aws_calls("sesv2") as unknown_ses:
        started(start(tokens, login_hint="nobody"))
    assert known == unknown == {"SendMessageBatch": 1}
    assert (known_db, known_ses) == (unknown_db, unknown_ses) and known_ses == {}
    assert deliver_queued() == 2
    assert (hook.posts, (tmp_path / "outbox.jsonl").exists()) == ([], False)


@pytest.mark.slow
def test_a_webhook_on_a_private_address_is_refused_at_delivery(hook: DocumentServer, tokens: TokenClient,
                                                               tmp_path: Path) -> None:
    """Set behind the CLI's back: delivery checks the address again (never retried), the request is answered the
    same."""
    webhook_of("demo", "https://10.0.0.1/hook")
    started(start(tokens, login_hint="nobody"))
    started(start(tokens))
    assert deliver_queued() == 4  # a webhook and a mail each; nobody's are dropped
    assert hook.posts == []
    webhook, mail = [json.loads(line) for line in (tmp_path / "outbox.jsonl").read_text().splitlines()]
    assert (mail["kind"], webhook["kind"], webhook["url"], webhook["outcome"], webhook["attempt"]) == (
        "mail", "webhook", "https://10.0.0.1/hook", "failed", 1)
    assert deliver_queued() == 0  # not retried: the queue is empty


def test_a_failed_delivery_is_retried(hook: DocumentServer, tokens: TokenClient, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A receiver that is down (503) gets the same signed payload later (SQS's visibility timeout); one metric each."""
    from authgate.deliveries.deliver import deliver_one
    from tests.document_server import Route

    hook.post_answers["/hook"] = [Route(b"", 503, {}), Route(b"", 200, {})]
    started(start(tokens))
    capsys.readouterr()
    record = queued_record()
    assert deliver_one(record) == "retried"
    assert deliver_one({**record, "attributes": {"ApproximateReceiveCount": "2"}}) == "delivered"
    assert len(hook.posts) == 2 and hook.posts[0][2] == hook.posts[1][2]
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    assert [name for doc in emitted for metric in doc["_aws"]["CloudWatchMetrics"] for name in
            (m["Name"] for m in metric["Metrics"])] == ["ApprovalWebhookRetried", "ApprovalWebhookDelivered"]
    outcomes = [(e["kind"], e.get("outcome"), e.get("attempt")) for e in
                (json.loads(line) for line in (tmp_path / "outbox.jsonl").read_text().splitlines())]
    assert outcomes == [("webhook", "retried", 1), ("webhook", "delivered", 2)]  # the mail is not sent here
