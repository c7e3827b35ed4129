"""oauth.logout.pages: the sign-out confirmation and the "signed out" page (OpenID Connect RP-Initiated Logout 1.0
sections 2 and 3)."""

from __future__ import annotations

from authgate.oauth.logout.pages import confirm, signed_out

EVIL = '"><script>x</script>'


def test_the_confirmation_names_who_asks_and_posts_its_fields_back_here_only() -> None:
    page = confirm("alice", "Demo Web", [("client_id", "demo-web"), ("csrf", "t")])
    assert page.status == 200
    assert "form-action 'self';" in page.headers["Content-Security-Policy"]
    assert "<p><strong>Demo Web</strong> asks to sign you out of this server. You are signed in as <strong>alice" in (
        page.body)
    assert ('<form method="post" action="logout">\n<input type="hidden" name="client_id" value="demo-web">\n'
            '<input type="hidden" name="csrf" value="t">') in page.body
    assert '<button type="submit" name="confirm" value="yes">Sign out</button>' in page.body


def test_an_unnamed_application_and_every_value_are_escaped() -> None:
    page = confirm(EVIL, "", [("state", EVIL)])
    assert "<script>" not in page.body and "An application asks" in page.body
    assert 'value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"' in page.body


def test_signed_out_has_no_form_and_offers_an_unvouched_address_as_a_link() -> None:
    done = signed_out()
    assert "You are signed out. You can close this window." in done.body and "<form" not in done.body
    assert "form-action 'none'" in done.headers["Content-Security-Policy"]
    onward = signed_out("https://app.example/after?state=s")
    assert '<a href="https://app.example/after?state=s" rel="noreferrer">Continue to https://app.example</a>' in (
        onward.body)


def test_ended_follows_a_vouched_for_address_offers_another_and_says_what_the_upstream_did_not() -> None:
    from authgate.oauth.logout.pages import Onward, ended

    back = "https://app.example/after?state=s"
    followed = ended(Onward(back, follow=True))
    assert (followed.status, followed.body, followed.headers) == (302, "", {
        "Location": back, "Cache-Control": "no-store", "Pragma": "no-cache", "Referrer-Policy": "no-referrer"})
    assert ended(Onward(back)).body == signed_out(back).body
    assert ended(Onward()).body == signed_out().body
    # A note: the page, even for an address that would have been followed, so that the person reads it.
    told = ended(Onward(back, follow=True), f"Acme {EVIL} could not be reached.")
    assert told.status == 200 and "<script>" not in told.body
    assert ("<p>You are signed out of this server.</p>\n<p>Acme &quot;&gt;&lt;script&gt;x&lt;/script&gt; could not be "
            "reached.</p>\n<p><a href=\"https://app.example/after?state=s\" rel=\"noreferrer\">Continue to "
            "https://app.example</a></p>") in told.body
    unvouched = ended(Onward(back), "Acme did not confirm.")
    assert "It registered itself with this server" in unvouched.body
    assert "<a " not in ended(Onward(), "Acme did not confirm.").body
