"""The console's signing-keys pages (docs/console.md, "Resources and signing keys"): every key with its state and
times, one key's public JWK, and one lifecycle step now, confirmed first: what `authgate keys rotate` runs
(authgate.administration.signing_keys), in its words; `keys.*` judged for no tenant before anything is read.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from authgate.clock import ManualClock, iso
from authgate.console.pages import when
from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    BAR,
    OLIVIA,
    ORIGIN,
    assert_console_error_page,
    console_event,
    grant,
    opened,
    operator_session,
    posted,
    shown,
    whole,
)

Invoke = Any
OWNER_BAR = BAR.format(who="olivia (owner)")


def test_olivia_lists_the_keys_and_opens_one(demo: Any, invoke: Invoke, clock: ManualClock) -> None:
    from authgate.stores.signing_keys import KeyStore

    keys = KeyStore().all()
    assert sorted(k.state for k in keys) == ["current", "next"]
    cookie = operator_session()
    listing, _ = opened(invoke, cookie, "/console/keys")
    rows = " ".join(f"{k.kid} {k.state} {k.alg} {k.backend} {when(k.activates_at)} {when(k.retires_at)}"
                    for k in keys)
    assert shown(listing) == (f"{OWNER_BAR} Signing keys Rotate now SAML signing keys 2 signing keys, newest first Key "
                              "id State "
                              f"Algorithm Backend Signs from Unpublished from {rows}")
    current = next(k for k in keys if k.state == "current")
    assert f'<a href="http://127.0.0.1:3000/console/key?kid={current.kid}">{current.kid}</a>' in listing["body"]
    one, _ = opened(invoke, cookie, "/console/key", f"kid={current.kid}")
    jwk = json.loads(current.public_jwk)
    assert shown(one) == (
        f"{OWNER_BAR} Signing key {current.kid} Key Key id {current.kid} State current Algorithm {current.alg} "
        f"Backend local Created {when(current.created_at)} Signs from {when(current.activates_at)} Unpublished from "
        f"never Record kept until never Public JWK {json.dumps(jwk, indent=2, sort_keys=True)}".replace("\n", " ")
        .replace("  ", " ").replace("  ", " "))
    assert set(jwk) >= {"kty", "kid", "alg", "use"} and "d" not in jwk and '"d"' not in one["body"]
    # What `authgate keys show` prints of the same key.
    from authgate_cli.admin.keys import show_key

    out = io.StringIO()
    assert show_key(current.kid, out, as_json=True) == 0 and json.loads(out.getvalue())["public_jwk"] == jwk


def test_olivia_rotates_after_the_confirmation_and_the_page_says_what_the_command_says(
        demo: Any, invoke: Invoke, clock: ManualClock, audit_events: Any) -> None:
    from authgate.stores.signing_keys import KeyStore

    before = {k.kid: k.state for k in KeyStore().all()}
    # The demo's keys were made at the real time: the next key has been published long enough then.
    waiting = next(k for k in KeyStore().all() if k.state == "next")
    clock.advance(waiting.activates_at - clock.value)
    cookie = operator_session()
    asked, jar = opened(invoke, cookie, "/console/keys/rotate")
    assert shown(asked) == (
        f"{OWNER_BAR} Rotate the signing keys now? One step of the signing-key lifecycle now, the step the schedule "
        "runs: a next key published long enough starts signing and the current one becomes previous; a previous "
        "key whose tokens have all expired is retired; a next key is made when there is none. Nothing moves before "
        "the overlap rule allows it, so no token in use becomes invalid. Rotate Cancel")
    assert {k.kid: k.state for k in KeyStore().all()} == before  # asking changes nothing
    done = posted(invoke, jar, "/console/keys/rotate", page_of(asked).hidden())
    assert headers_of(done)["Cache-Control"] == "no-store"
    _, demoted, created = one_step(done, before, audit_events())
    # The same step once more: the new next key waits, as the command says.
    again = posted(invoke, jar, "/console/keys/rotate", page_of(asked).hidden())
    waits = (f"next key {created.kid} is published but may not sign before "
             f"{iso(created.activates_at)} (JWKS max-age + leeway after publication); run `authgate keys "
             "rotate` again after that")
    assert f"Done: {waits}." in shown(again)
    from authgate_cli.admin.keys import rotate_keys

    out = io.StringIO()
    assert rotate_keys(out) == 0 and out.getvalue().splitlines()[0] == waits
    # Once every token the previous key signed has expired, a step retires it (its private key deleted).
    clock.advance(max(created.activates_at, demoted.retires_at) - clock.value)
    asked, jar = opened(invoke, cookie, "/console/keys/rotate")
    last = posted(invoke, jar, "/console/keys/rotate", page_of(asked).hidden())
    newest = next(k for k in KeyStore().all() if k.state == "next")
    assert f"; created {newest.kid}; retired {demoted.kid} (every token it signed has expired). " in shown(last)
    assert {k.kid: k.state for k in KeyStore().all()}[demoted.kid] == "retired"


@pytest.mark.parametrize(("method", "path", "rule"), [
    ("GET", "/console/keys", "keys.view"), ("GET", "/console/key", "keys.view"),
    ("GET", "/console/keys/rotate", "keys.change"), ("POST", "/console/keys/rotate", "keys.change"),
])
def test_support_gets_the_403_page_for_every_keys_page_and_form(demo: Any, invoke: Invoke, audit_events: Any,
                                                                method: str, path: str, rule: str) -> None:
    from authgate.stores.signing_keys import KeyStore

    before = KeyStore().all()
    grant("sam", "support", "demo")
    cookie = operator_session("sam", "usr_sam")
    if method == "GET":
        result = invoke("console", console_event("GET", path, f"kid={before[0].kid}", cookie=cookie))
    else:  # a form of a page sam may open (the people page's sign-out), posted to the rotation
        people, jar = opened(invoke, cookie, "/console/people")
        result = posted(invoke, jar, path, page_of(people).hidden())
    assert_console_error_page(result, "operator_forbidden", "Your roles (support (demo)) do not allow this.", 403)
    assert KeyStore().all() == before
    assert whole(audit_events(), "console.refused")["details"] == {"console_action": rule,
                                                                   "roles": "support (demo)"}


def test_an_auditor_sees_the_keys_and_rotates_nothing(demo: Any, invoke: Invoke, clock: ManualClock) -> None:
    from authgate.stores.signing_keys import KeyStore

    before = KeyStore().all()
    grant("audrey", "auditor")
    cookie = operator_session("audrey", "usr_audrey")
    listing, jar = opened(invoke, cookie, "/console/keys")
    assert "Rotate now" not in shown(listing) and before[0].kid in shown(listing)
    assert '<a href="http://127.0.0.1:3000/console/saml-keys">SAML signing keys</a>' in listing["body"]
    clock.advance(3600)
    assert_console_error_page(posted(invoke, jar, "/console/keys/rotate", page_of(listing).hidden()),
                              "operator_forbidden", "Your roles (auditor) do not allow this.", 403)
    assert KeyStore().all() == before
    grant("adam", "admin")
    assert "Rotate now" in shown(opened(invoke, operator_session("adam", "usr_adam"), "/console/keys")[0])


def test_an_unknown_key_or_none_named_is_the_error_page(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    for query, code, detail, status in (("", "invalid_request", "Name the key with kid.", 400),
                                        ("kid=nosuch", "not_found", "There is no signing key 'nosuch'.", 404),
                                        ("kid=%23published", "not_found", "There is no signing key '#published'.",
                                         404)):
        assert_console_error_page(invoke("console", console_event("GET", "/console/key", query, cookie=cookie)),
                                  code, detail, status)


def test_a_stage_whose_keys_are_in_kms_rotates_them_from_the_console_through_the_rotation_function(
        demo: Any, invoke: Invoke, clock: ManualClock, audit_events: Any, log_lines: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.stores.signing_keys import KeyStore
    from tests import aws_state

    before = {k.kid: k.state for k in KeyStore().all()}
    waiting = next(k for k in KeyStore().all() if k.state == "next")
    clock.advance(waiting.activates_at - clock.value)
    monkeypatch.setenv("AUTHGATE_SIGNING_BACKEND", "kms")
    # The roles a new key's own policy names, as the template gives the rotation function (this world's role ARNs).
    monkeypatch.setenv("AUTHGATE_KMS_SIGNER_ROLE", "arn:aws:iam::123456789012:role/local-TokenFunctionRole")
    monkeypatch.setenv("AUTHGATE_KMS_ADMIN_ROLE", "arn:aws:iam::123456789012:role/local-RotateKeysFunctionRole")
    caches.reset()
    cookie = operator_session()
    asked, jar = opened(invoke, cookie, "/console/keys/rotate")
    assert shown(asked).startswith(f"{OWNER_BAR} Rotate the signing keys now? One step of the signing-key lifecycle")
    done = posted(invoke, jar, "/console/keys/rotate", page_of(asked).hidden())
    # The page says what moved, and key.rotated is recorded once, by the operator naming their roles (the function
    # records nothing for the console's request).
    _, _, created = one_step(done, before, audit_events())
    # The new next key is a KMS key of this stack, made by the rotation function the console invoked (Lambda's
    # Invoke, answered by functions/rotate_keys here: authgate_cli.local.lambda_invoke), whose log says who asked.
    kms = aws_state.client("kms")
    assert (created.backend, kms.describe_key(KeyId=created.kms_key_id)["KeyMetadata"]["KeySpec"]) == ("kms",
                                                                                                    "RSA_2048")
    assert {t["TagKey"]: t["TagValue"] for t in kms.list_resource_tags(KeyId=created.kms_key_id)["Tags"]} == {
        "authgate-stack": "local", "authgate-stage": "local", "authgate-kid": created.kid}
    assert [line["trigger"] for line in log_lines() if line["message"] == "signing keys rotated"] == ["request"]


def one_step(done: dict[str, Any], before: dict[str, str], events: list[dict[str, Any]]) -> tuple[Any, Any, Any]:
    """The keys promoted, demoted and created by the step whose answer page is `done` (the keys' states `before`
    it), once the page has said so in the command's words and olivia's key.rotated event has recorded them."""
    from authgate.stores.signing_keys import KeyStore

    after = KeyStore().all()
    promoted = next(k for k in after if k.state == "current")
    demoted = next(k for k in after if k.state == "previous")
    created = next(k for k in after if k.state == "next")
    assert (before[promoted.kid], before[demoted.kid], created.kid in before) == ("next", "current", False)
    said = (f"promoted {promoted.kid} ({promoted.alg}) to current; {demoted.kid} is now previous; "
            f"created {created.kid}")
    rows = " ".join(f"{k.kid} {k.state} {k.alg} {k.backend} {when(k.activates_at)} {when(k.retires_at)}"
                    for k in after)
    assert shown(done) == (f"{OWNER_BAR} Signing keys rotated Done: {said}. The signing keys now Key id State "
                           f"Algorithm Backend Signs from Unpublished from {rows} Back to the signing keys")
    assert whole(events, "key.rotated") == {
        "tenant": "", "actor": OLIVIA, "action": "key.rotated", "target": {"type": "key", "id": "signing-keys"},
        "outcome": "success", **ORIGIN,
        "details": {"via": "console", "console_action": "keys.rotate", "roles": "owner", "promoted": promoted.kid,
                    "demoted": demoted.kid, "created": [created.kid], "retired": []}}
    return promoted, demoted, created


UNANSWERED = ("The signing-key rotation function did not answer, so what this step did is unknown: look at the signing "
              "keys, then rotate again in a moment if you still need to (a step moves only what the overlap rule "
              "allows).")


def test_a_rotation_the_function_does_not_answer_is_the_503_error_page_and_a_failure_on_record(
        demo: Any, invoke: Invoke, audit_events: Any, log_lines: Any) -> None:
    from tests import aws_state

    cookie = operator_session()
    asked, jar = opened(invoke, cookie, "/console/keys/rotate")
    # The function runs and fails (its table is gone): Lambda's answer is a function error, not a report. Refused,
    # throttled and timed-out invocations are the same page (tests/unit/tokens/test_rotation_request.py).
    aws_state.client("dynamodb").delete_table(TableName="KeysTable")
    result = posted(invoke, jar, "/console/keys/rotate", page_of(asked).hidden())
    assert result["multiValueHeaders"].pop("Retry-After") == ["1"]
    assert_console_error_page(result, "service_unavailable", UNANSWERED, 503)
    # olivia's asking is on the record, as a failure: the step may still finish after the console stops waiting.
    events = audit_events()
    assert [e["action"] for e in events] == ["key.rotated"]
    assert whole(events, "key.rotated") == {
        "tenant": "", "actor": OLIVIA, "action": "key.rotated", "target": {"type": "key", "id": "signing-keys"},
        "outcome": "failure", "reason": "unanswered", **ORIGIN,
        "details": {"via": "console", "console_action": "keys.rotate", "roles": "owner"}}
    assert [line["internal"] for line in log_lines() if "internal" in line] == [
        "RotateKeysFunction failed (Unhandled): ResourceNotFoundException"]


