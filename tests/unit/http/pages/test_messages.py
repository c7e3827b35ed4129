"""http.pages.messages: an error is an alert, a success a status, and no message draws nothing."""

from __future__ import annotations

from authgate.http.pages.messages import Done, alert, shown, status


def test_an_error_is_an_alert_and_a_success_a_status_both_escaped() -> None:
    assert alert("Wrong <code>.") == '<p class="message error" role="alert">Wrong &lt;code&gt;.</p>'
    assert status("Saved & done.") == '<p class="message success" role="status">Saved &amp; done.</p>'


def test_no_message_draws_nothing() -> None:
    assert (alert(""), status(""), shown(""), shown(Done(""))) == ("", "", "", "")


def test_a_message_is_shown_by_its_kind() -> None:
    assert shown(Done("The passkey Phone was added.")) == status("The passkey Phone was added.")
    assert shown("The code is incorrect.") == alert("The code is incorrect.")
    assert Done("x") == "x" and isinstance(Done("x"), str)
