"""console.saml_keys: the stack's SAML signing keys as `authgate saml-keys` lists and shows them, a key added and the
signing one retired by its operations, each refusal the command's sentence, each action its audit event (key.rotated),
a form taken once; `keys.*` judged before anything is read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.pages import when
from authgate.console.saml_keys import get_add, get_key, get_list, get_retire, post_add, post_retire
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed

pytestmark = [pytest.mark.usefixtures("aws"), pytest.mark.slow]  # RSA 3072 keys made
ADMIN = signed("admin")
AUDITOR = signed("auditor")


def test_a_key_is_added_listed_and_shown_by_its_certificate_never_its_private_half(
        audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.administration.saml_sp_keys import listed

    assert main_text(get_list(get("saml-keys"), ADMIN)) == (
        "SAML signing keys Add a key No SAML signing key: requests go unsigned. Back to the signing keys")
    answer = post_add(post("saml-keys/add", {}), ADMIN)
    [key] = listed()
    assert main_text(answer) == (f"SAML signing key added Done: added, signing: {key.fingerprint}. Back to the SAML "
                                 "signing keys")
    assert "CN=authgate SAML SP http://127.0.0.1:3000" in _subject(key.certificate)
    assert main_text(get_list(get("saml-keys"), AUDITOR)) == (
        f"SAML signing keys 1 SAML signing key, the signing one first Fingerprint (SHA-256) Signs Created Not after "
        f"{key.fingerprint} yes {when(key.created_at)} {when(key.not_after)} Back to the signing keys")
    shown = get_key(get("saml-key", [("fingerprint", key.fingerprint)]), AUDITOR)
    assert main_text(shown) == (
        f"SAML signing key {key.fingerprint} Key Fingerprint (SHA-256) {key.fingerprint} Signs yes Created "
        f"{when(key.created_at)} Not after {when(key.not_after)} Certificate {' '.join(key.certificate.split())} "
        "Back to the SAML signing keys")
    assert "PRIVATE" not in str(shown.body)
    (event,) = audit_events()
    assert (event["action"], event["target"], event["outcome"], event["details"]) == (
        "key.rotated", {"type": "key", "id": "signing-keys"}, "success",
        {"via": "console", "console_action": "saml-keys.add", "roles": "admin", "fingerprint_sha256": key.fingerprint,
         "signs": True})


def test_the_confirmations_say_what_each_action_does() -> None:
    assert main_text(get_add(get("saml-keys/add"), ADMIN)).startswith("Add a SAML signing key? A new key (RSA 3072")
    assert main_text(get_retire(get("saml-keys/retire"), ADMIN)).endswith(
        "an IdP that still expects the retired one refuses the requests. Retire Cancel")


def test_a_refusal_is_the_commands_sentence_and_recorded(audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    with pytest.raises(ApiError) as refused:
        post_retire(post("saml-keys/retire", {}), ADMIN)
    assert (refused.value.code, refused.value.detail) == ("invalid_request", "the stack has no SAML signing key")
    assert [(e["action"], e["outcome"], e["reason"]) for e in audit_events()] == [
        ("key.rotated", "failure", "invalid_input")]


@pytest.mark.parametrize("handler", [get_add, get_retire, post_add, post_retire])
def test_an_auditor_may_not_add_or_retire(handler: Any) -> None:
    from authgate.administration.saml_sp_keys import listed

    with pytest.raises(ApiError) as refused:
        handler(post("saml-keys/add", {}), AUDITOR)
    assert (refused.value.code, refused.value.detail) == ("operator_forbidden",
                                                          "Your roles (auditor) do not allow this.")
    assert listed() == []


def test_a_form_sent_twice_is_taken_once() -> None:
    from authgate.administration.saml_sp_keys import listed

    form = post("saml-keys/add", {})
    post_add(form, ADMIN)
    with pytest.raises(ApiError) as refused:
        post_add(form, ADMIN)
    assert refused.value.detail == "This form was sent already, and its answer shown once; open the page again."
    assert len(listed()) == 1


def _subject(certificate: str) -> str:
    from cryptography import x509

    return x509.load_pem_x509_certificate(certificate.encode()).subject.rfc4514_string()
