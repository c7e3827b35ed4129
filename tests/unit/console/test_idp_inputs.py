"""console.idp_inputs: the inputs of the identity provider forms, each labelled, its hint tied to it, escaped; a secret's
input never filled in."""

from __future__ import annotations

from authgate.console.idp_inputs import check, field, secret, select, textarea


def test_a_field_is_labelled_escaped_and_tied_to_its_hint() -> None:
    assert field("label", "Label <b>", 'a "b" <c>', hint="What people read & see", required=True) == (
        '<label for="label">Label &lt;b&gt;</label>\n<input id="label" name="label" type="text" '
        'value="a &quot;b&quot; &lt;c&gt;" autocomplete="off" spellcheck="false" aria-describedby="label-hint" '
        'required>\n<p class="hint" id="label-hint">What people read &amp; see</p>')
    assert field("issuer", "Issuer", kind="url") == (
        '<label for="issuer">Issuer</label>\n<input id="issuer" name="issuer" type="url" value="" autocomplete="off" '
        'spellcheck="false">')


def test_a_select_marks_the_chosen_option_only() -> None:
    assert select("step_up", "Step-up", (("local", "authgate's own"), ("upstream", "the <IdP>")), "upstream",
                  "When a second factor is needed") == (
        '<label for="step_up">Step-up</label>\n<select id="step_up" name="step_up" aria-describedby="step_up-hint">\n'
        '<option value="local">authgate&#x27;s own</option>\n<option value="upstream" selected>the &lt;IdP&gt;</option>\n'
        '</select>\n<p class="hint" id="step_up-hint">When a second factor is needed</p>')


def test_a_secret_is_never_filled_in_and_says_what_empty_means() -> None:
    required = secret(required=True)
    assert required == (
        '<label for="client_secret">Client secret</label>\n<input id="client_secret" name="client_secret" '
        'type="password" autocomplete="new-password" aria-describedby="client_secret-hint" required>\n'
        '<p class="hint" id="client_secret-hint">The client secret the IdP issued; sealed before it is stored, never '
        'shown.</p>')
    assert "value=" not in required
    assert secret(required=False) == (
        '<label for="client_secret">Client secret</label>\n<input id="client_secret" name="client_secret" '
        'type="password" autocomplete="new-password" aria-describedby="client_secret-hint">\n'
        '<p class="hint" id="client_secret-hint">A new client secret the IdP issued; empty: the secret stays as it '
        'is.</p>')
    assert secret(required=False, new=False) == required.replace(" required>", ">")


def test_a_text_area_starts_empty() -> None:
    assert textarea("metadata", "Metadata <XML>", "Pasted as the IdP gives it", required=True) == (
        '<label for="metadata">Metadata &lt;XML&gt;</label>\n<textarea id="metadata" name="metadata" rows="8" '
        'spellcheck="false" autocomplete="off" aria-describedby="metadata-hint" required></textarea>\n'
        '<p class="hint" id="metadata-hint">Pasted as the IdP gives it</p>')


def test_a_check_box_says_yes_when_checked() -> None:
    assert check("trust_email", "Trust <email>", True, "Its verified emails") == (
        '<label class="check" for="trust_email"><input id="trust_email" name="trust_email" type="checkbox" value="yes" '
        'checked aria-describedby="trust_email-hint"> Trust &lt;email&gt;</label>\n'
        '<p class="hint" id="trust_email-hint">Its verified emails</p>')
    assert check("create_users", "Create users", False) == (
        '<label class="check" for="create_users"><input id="create_users" name="create_users" type="checkbox" '
        'value="yes"> Create users</label>')
