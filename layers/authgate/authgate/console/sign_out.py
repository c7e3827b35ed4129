"""POST /console/sign-out and GET /console/signed-out: the console's session ends here, then at the stack's
end_session endpoint (OpenID Connect RP-Initiated Logout 1.0 2-3).

The form is the page's own (CSRF, interaction.pages). The console's session item is deleted and its cookie cleared,
then the browser goes to /oauth/logout with the ID token of the sign-in as id_token_hint (it names the sign-in
session, which ends there at once) and the console's registered post_logout_redirect_uri, which brings it to the
"signed out" page. A request whose session already ended goes straight to that page.
"""

from __future__ import annotations

from urllib.parse import urlencode

from authgate.console.client import CLIENT_ID, SIGNED_OUT
from authgate.console.pages import STEP, url
from authgate.console.session import cleared, signed_in
from authgate.http.request import Request
from authgate.http.response import NO_STORE, Response
from authgate.interaction.pages import form_fields, page
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.stores.console_sessions import ConsoleSessionStore


def post_sign_out(request: Request) -> Response:
    form_fields(request, STEP)
    issuer = base_url(request)
    signed = signed_in(request)
    location = issuer + SIGNED_OUT
    if signed is not None:
        ConsoleSessionStore().end(signed.session)
        get_logger().info("console sign-out", extra={"operator": signed.operator.username})
        location = f"{issuer}/oauth/logout?" + urlencode({
            "id_token_hint": signed.session.id_token, "client_id": CLIENT_ID,
            "post_logout_redirect_uri": issuer + SIGNED_OUT})
    response = Response(303, "", {"Location": location, **NO_STORE, "Referrer-Policy": "no-referrer"})
    response.multi_headers["Set-Cookie"] = [cleared(request)]
    return response


def get_signed_out(request: Request) -> Response:
    """The page a sign-out ends on."""
    return page("Signed out", f'<p role="status">You have signed out of the console.</p>\n'
                              f'<p><a href="{url(request)}">Sign in again</a></p>')
