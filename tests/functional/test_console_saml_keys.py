"""The console's SAML signing-keys pages (docs/console.md, "Keys"): the keys by fingerprint, state and validity, one
key's certificate (never its private half), and adding a key and retiring the signing one, each confirmed first:
what `authgate saml-keys` runs (authgate.administration.saml_sp_keys), in its words, recorded as it records them
(key.rotated); `keys.*` judged for no tenant before anything is read.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from authgate.console.pages import when
from tests.functional.authorize_support import page_of
from tests.functional.console_support import (
    ADMIN_BAR,
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

pytestmark = pytest.mark.slow  # RSA 3072 keys made

Invoke = Any
OWNER_BAR = BAR.format(who="olivia (owner)")
ONCE = "This form was sent already, and its answer shown once; open the page again."
ADD_DOES = ("A new key (RSA 3072, under a self-signed certificate valid for ten years) is made. When the stack has "
            "none, it signs every AuthnRequest and LogoutRequest from now on; otherwise it is published in the SP "
            "metadata beside the signing key, and signs once that one is retired.")


def _cli(action: str, *args: str) -> tuple[int, str]:
    from authgate_cli.admin import saml_keys

    out = io.StringIO()
    status = {"list": lambda: saml_keys.list_keys(out), "show": lambda: saml_keys.show_key(args[0], out)}[action]()
    return status, out.getvalue()


def _rows() -> str:
    from authgate.administration.saml_sp_keys import listed

    return " ".join(f"{k.fingerprint} {'yes' if k.signs else 'no'} {when(k.created_at)} {when(k.not_after)}"
                    for k in listed())


def _add(invoke: Invoke, cookie: str) -> dict[str, Any]:
    asked, jar = opened(invoke, cookie, "/console/saml-keys/add")
    return posted(invoke, jar, "/console/saml-keys/add", page_of(asked).hidden())


def test_olivia_adds_the_first_key_after_the_confirmation_and_opens_its_certificate(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.administration.saml_sp_keys import listed
    from authgate.federation.saml import sp_keys

    cookie = operator_session()
    keys_page, _ = opened(invoke, cookie, "/console/keys")
    assert '<a href="http://127.0.0.1:3000/console/saml-keys">SAML signing keys</a>' in keys_page["body"]
    empty, _ = opened(invoke, cookie, "/console/saml-keys")
    assert shown(empty) == (f"{OWNER_BAR} SAML signing keys Add a key No SAML signing key: requests go unsigned. "
                            "Back to the signing keys")
    asked, jar = opened(invoke, cookie, "/console/saml-keys/add")
    assert shown(asked) == f"{OWNER_BAR} Add a SAML signing key? {ADD_DOES} Add Cancel"
    assert listed() == []  # asking changes nothing
    fields = page_of(asked).hidden()
    done = posted(invoke, jar, "/console/saml-keys/add", fields)
    [key] = listed()
    assert shown(done) == (f"{OWNER_BAR} SAML signing key added Done: added, signing: {key.fingerprint}. Back to the "
                           "SAML signing keys")
    assert key.signs and sp_keys.signer().certificate == key.certificate  # type: ignore[union-attr]
    assert whole(audit_events(), "key.rotated") == {
        "tenant": "", "actor": OLIVIA, "action": "key.rotated", "target": {"type": "key", "id": "signing-keys"},
        "outcome": "success", **ORIGIN,
        "details": {"via": "console", "console_action": "saml-keys.add", "roles": "owner",
                    "fingerprint_sha256": key.fingerprint, "signs": True}}
    # The same form again (the answer reloaded) adds nothing.
    assert_console_error_page(posted(invoke, jar, "/console/saml-keys/add", fields), "invalid_request", ONCE, 400)
    assert listed() == [key]

    listing, _ = opened(invoke, cookie, "/console/saml-keys")
    assert shown(listing) == (f"{OWNER_BAR} SAML signing keys Add a key Retire the signing key 1 SAML signing key, the "
                              f"signing one first Fingerprint (SHA-256) Signs Created Not after {_rows()} Back to the "
                              "signing keys")
    assert (f'<a href="http://127.0.0.1:3000/console/saml-key?fingerprint={key.fingerprint.replace(":", "%3A")}">'
            f"{key.fingerprint}</a>") in listing["body"]
    one, _ = opened(invoke, cookie, "/console/saml-key", f"fingerprint={key.fingerprint.lower()}")
    assert shown(one) == (f"{OWNER_BAR} SAML signing key {key.fingerprint} Key Fingerprint (SHA-256) {key.fingerprint} "
                          f"Signs yes Created {when(key.created_at)} Not after {when(key.not_after)} Certificate "
                          f"{' '.join(key.certificate.split())} Back to the SAML signing keys")
    assert "PRIVATE" not in one["body"] and "PRIVATE" not in listing["body"]
    # What `authgate saml-keys list` and `show` print of the same key.
    assert _cli("list")[1].splitlines()[1].split()[0] == key.fingerprint
    assert _cli("show", key.fingerprint)[1].endswith(key.certificate)


def test_olivia_rotates_the_key_a_second_is_published_then_signs_once_the_first_is_retired(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.administration.saml_sp_keys import listed

    cookie = operator_session()
    _add(invoke, cookie)
    second = _add(invoke, cookie)
    first, new = listed()
    assert f"Done: added, published beside the signing key: {new.fingerprint}." in shown(second)
    assert (first.signs, new.signs) == (True, False)
    # A third is refused in the command's words, and recorded so.
    refused = _add(invoke, cookie)
    assert_console_error_page(refused, "invalid_request",
                              "the stack has two SAML signing keys already: retire the signing one first", 400)
    asked, jar = opened(invoke, cookie, "/console/saml-keys/retire")
    assert shown(asked) == (
        f"{OWNER_BAR} Retire the SAML signing key? The key that signs requests now is dropped and the next one signs; "
        "with no other key, requests go unsigned. Retire it once every IdP has the next key's certificate (the SP "
        "metadata publishes it): an IdP that still expects the retired one refuses the requests. Retire Cancel")
    fields = page_of(asked).hidden()
    retired = posted(invoke, jar, "/console/saml-keys/retire", fields)
    assert shown(retired) == (f"{OWNER_BAR} SAML signing key retired Done: retired: {first.fingerprint}. Back to the "
                              "SAML signing keys")
    assert [(k.fingerprint, k.signs) for k in listed()] == [(new.fingerprint, True)]
    # Reloading the answer retires nothing more: the key that just started signing stays.
    assert_console_error_page(posted(invoke, jar, "/console/saml-keys/retire", fields), "invalid_request", ONCE, 400)
    assert [k.fingerprint for k in listed()] == [new.fingerprint]
    events = [e for e in audit_events() if e["action"] == "key.rotated"]
    assert [(e["outcome"], e.get("reason"), e["details"]["console_action"], e["details"].get("fingerprint_sha256"))
            for e in events] == [
        ("success", None, "saml-keys.add", first.fingerprint), ("success", None, "saml-keys.add", new.fingerprint),
        ("failure", "invalid_input", "saml-keys.add", None), ("success", None, "saml-keys.retire", first.fingerprint)]
    assert events[2]["details"] == {"via": "console", "console_action": "saml-keys.add", "roles": "owner"}


def test_retiring_with_no_key_is_the_commands_refusal_and_recorded(demo: Any, invoke: Invoke,
                                                                  audit_events: Any) -> None:
    asked, jar = opened(invoke, operator_session(), "/console/saml-keys/retire")
    assert_console_error_page(posted(invoke, jar, "/console/saml-keys/retire", page_of(asked).hidden()),
                              "invalid_request", "the stack has no SAML signing key", 400)
    assert whole(audit_events(), "key.rotated") == {
        "tenant": "", "actor": OLIVIA, "action": "key.rotated", "target": {"type": "key", "id": "signing-keys"},
        "outcome": "failure", "reason": "invalid_input", **ORIGIN,
        "details": {"via": "console", "console_action": "saml-keys.retire", "roles": "owner"}}


@pytest.mark.parametrize(("method", "path", "rule"), [
    ("GET", "/console/saml-keys", "keys.view"), ("GET", "/console/saml-key", "keys.view"),
    ("GET", "/console/saml-keys/add", "keys.change"), ("POST", "/console/saml-keys/add", "keys.change"),
    ("GET", "/console/saml-keys/retire", "keys.change"), ("POST", "/console/saml-keys/retire", "keys.change"),
])
def test_support_gets_the_403_page_for_every_saml_keys_page_and_form(demo: Any, invoke: Invoke, audit_events: Any,
                                                                     method: str, path: str, rule: str) -> None:
    from authgate.administration.saml_sp_keys import listed

    grant("sam", "support", "demo")
    cookie = operator_session("sam", "usr_sam")
    if method == "GET":
        result = invoke("console", console_event("GET", path, "fingerprint=" + ":".join(["AB"] * 32), cookie=cookie))
    else:  # a form of a page sam may open (the people page's sign-out), posted here
        people, jar = opened(invoke, cookie, "/console/people")
        result = posted(invoke, jar, path, page_of(people).hidden())
    assert_console_error_page(result, "operator_forbidden", "Your roles (support (demo)) do not allow this.", 403)
    assert listed() == []
    assert whole(audit_events(), "console.refused")["details"] == {"console_action": rule, "roles": "support (demo)"}


def test_an_auditor_sees_the_keys_and_changes_nothing_an_admin_adds_one(demo: Any, invoke: Invoke,
                                                                       audit_events: Any) -> None:
    from authgate.administration.saml_sp_keys import listed

    grant("audrey", "auditor")
    cookie = operator_session("audrey", "usr_audrey")
    listing, jar = opened(invoke, cookie, "/console/saml-keys")
    assert shown(listing).endswith(" SAML signing keys No SAML signing key: requests go unsigned. Back to the signing "
                                   "keys")
    for path in ("/console/saml-keys/add", "/console/saml-keys/retire"):
        assert_console_error_page(posted(invoke, jar, path, page_of(listing).hidden()), "operator_forbidden",
                                  "Your roles (auditor) do not allow this.", 403)
    assert listed() == []
    grant("adam", "admin")
    added = _add(invoke, operator_session("adam", "usr_adam"))
    [key] = listed()
    assert shown(added) == (f"{ADMIN_BAR.format(who='adam (admin)')} SAML signing key added Done: added, signing: "
                            f"{key.fingerprint}. Back to the SAML signing keys")
    one, _ = opened(invoke, cookie, "/console/saml-key", f"fingerprint={key.fingerprint}")
    assert f"Signs yes Created {when(key.created_at)}" in shown(one)
    assert whole(audit_events(), "key.rotated")["actor"]["id"] == "adam"


@pytest.mark.parametrize(("query", "code", "detail", "status"), [
    ("", "invalid_request", "Name the key with fingerprint.", 400),
    ("fingerprint=nosuch", "invalid_request", ("FINGERPRINT 'nosuch' is not a SHA-256 fingerprint (32 hex pairs "
                                               "joined by colons, as `authgate saml-keys list` prints it)"), 400),
    ("fingerprint=" + ":".join(["AB"] * 32), "not_found", f"There is no SAML signing key '{':'.join(['AB'] * 32)}'.",
     404),
    ("fingerprint=a&fingerprint=b", "invalid_request", "The fingerprint parameter is repeated.", 400),
])
def test_an_unknown_or_malformed_fingerprint_is_the_error_page(demo: Any, invoke: Invoke, query: str, code: str,
                                                               detail: str, status: int) -> None:
    result = invoke("console", console_event("GET", "/console/saml-key", query, cookie=operator_session()))
    assert_console_error_page(result, code, detail, status)


def test_a_forged_form_adds_nothing(demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.administration.saml_sp_keys import listed

    asked, jar = opened(invoke, operator_session(), "/console/saml-keys/add")
    assert_console_error_page(posted(invoke, jar, "/console/saml-keys/add", {**page_of(asked).hidden(),
                                                                            "csrf": "forged"}),
                              "invalid_request", "The form has expired or was altered. Open it again.", 400)
    assert listed() == [] and [e["action"] for e in audit_events()] == []
