"""A person at the browser, for programs that call `webbrowser.open` (BROWSER="python -m tests.e2e.browser_sign_in %s").

Headless Chromium opens the authorization URL, signs in as alice (organisation demo when the page asks,
as for a client that registered itself) and approves; the redirect then goes wherever the URL says
(the program's own callback server). Each URL's query is appended to $SIGN_IN_LOG, one JSON object a line.
"""

from __future__ import annotations

import json
import os
import sys
from urllib.parse import parse_qsl, urlsplit

from tests.e2e.chromium import chromium


def sign_in(url: str) -> None:
    with chromium() as browser:
        context = browser.new_context()
        page = context.new_page()
        page.goto(url)
        page.fill("#username", "alice")
        page.fill("#password", "alice-password")
        if page.locator("#tenant").count():
            page.fill("#tenant", "demo")
        redirect = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
        # The button, not the first text with "Approve" in it (the page's warning says "Approve only if...").
        page.click("button[name=decision][value=approve]")
        try:
            page.wait_for_url(f"{redirect}?*")
        except Exception:
            # What the person would see instead, for the test's report.
            with open(os.environ["SIGN_IN_LOG"] + ".html", "w", encoding="utf-8") as shown_page:
                shown_page.write(page.content())
            raise
        page.wait_for_load_state()
        shown = page.inner_text("body")
        context.close()
    with open(os.environ["SIGN_IN_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({**dict(parse_qsl(urlsplit(url).query)), "page": shown}) + "\n")


if __name__ == "__main__":
    sign_in(sys.argv[1])
