"""GET /console/keys, /console/key?kid=K and /console/keys/rotate (GET: the confirmation; POST: one step now).

The list is what `authgate keys list` prints (each signing key, newest first, with its state, algorithm, backend,
when it may sign and when it leaves the JWKS); one key's page what `authgate keys show` prints, its public JWK
included (never where its private half is kept). Rotating is the step `authgate keys rotate` and the schedule run
(authgate.administration.signing_keys): one lifecycle step, only what the overlap rule allows, said in the command's
words, and its audit event (key.rotated) by the operator naming their roles, recorded here once the step is done.

The console has that step run by the rotation function, on every backend (a Lambda Invoke:
authgate.tokens.rotation_request): on a stage that keeps its keys in KMS each key's own policy names that function's
role, and no other, to read and retire it, so the console itself holds no grant over keys, secrets or KMS. When the
function gives no report the page is the 503 `service_unavailable` error page, and nothing is recorded.

The page links to the SAML signing keys (console.saml_keys), which sit under Keys too.

Signing keys belong to no tenant: `keys.view` and `keys.change` are judged for none (operators.roles: owner, admin,
auditor see; owner and admin rotate), before anything is read.
"""

from __future__ import annotations

import html
import json

from authgate import audit
from authgate.console.pages import (
    STEP,
    Link,
    allow,
    confirmation,
    definitions,
    done,
    links,
    page,
    query_value,
    section,
    table,
    url,
    when,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.operators import roles
from authgate.stores.signing_keys import KeyRecord

CURRENT = "keys"


def get_keys(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.view")
    from authgate.administration.signing_keys import keys

    found = keys()
    body = _table(request, found, f"{len(found)} signing key{'s' if len(found) != 1 else ''}, newest first")
    rotate = [Link(url(request, "keys/rotate"), "Rotate now")] if roles.may(signed.operator.roles, "keys.change") else []
    body = links([*rotate, Link(url(request, "saml-keys"), "SAML signing keys")]) + "\n" + body
    return page(request, signed, "Signing keys", body, current=CURRENT)


def get_key(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.view")
    kid = query_value(request, "kid", 128)
    if not kid:
        raise ApiError("invalid_request", "Name the key with kid.")
    from authgate.administration.signing_keys import key

    found = key(kid)
    if found is None:
        raise ApiError("not_found", f"There is no signing key {kid!r}.")
    jwk = json.dumps(json.loads(found.public_jwk or "null"), indent=2, sort_keys=True)
    body = definitions("Key", [
        ("Key id", found.kid), ("State", found.state), ("Algorithm", found.alg), ("Backend", found.backend),
        ("Created", when(found.created_at)), ("Signs from", when(found.activates_at)),
        ("Unpublished from", when(found.retires_at)), ("Record kept until", when(found.expires_at))]) + "\n" + \
        section("Public JWK", f"<pre>{html.escape(jwk)}</pre>")
    return page(request, signed, f"Signing key {found.kid}", body, current=CURRENT)


def get_rotate(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.change")
    return confirmation(
        request, signed, title="Rotate the signing keys now?",
        does="One step of the signing-key lifecycle now, the step the schedule runs: a next key published long "
             "enough starts signing and the current one becomes previous; a previous key whose tokens have all "
             "expired is retired; a next key is made when there is none. Nothing moves before the overlap rule "
             "allows it, so no token in use becomes invalid.",
        target="keys/rotate", fields=(), label="Rotate", cancel=Link(url(request, "keys"), "Cancel"), current=CURRENT)


def post_rotate(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.change")
    form_fields(request, STEP)
    from authgate.administration.signing_keys import rotate_by_function
    from authgate.console.pages import recorded
    from authgate.tokens.rotation_request import RotationUnanswered

    target = audit.Party("key", "signing-keys")
    try:
        report, said = rotate_by_function()
    except RotationUnanswered:
        # What the step did is unknown (the function may still finish it): the operator's asking is on the record,
        # as a failure; the 503 page says to look at the keys (failures.ERRORS).
        recorded(signed, "key.rotated", "", target, "keys.rotate", outcome="failure", reason="unanswered")
        raise
    recorded(signed, "key.rotated", "", target, "keys.rotate",
             promoted=report.promoted, demoted=report.demoted, created=report.created, retired=report.retired)
    return done(request, signed, title="Signing keys rotated", said="; ".join(said) or "no key could move yet",
                back=Link(url(request, "keys"), "Back to the signing keys"), current=CURRENT,
                more=_table(request, report.keys, "The signing keys now") + "\n")


def _table(request: Request, keys: list[KeyRecord], caption: str) -> str:
    return table(caption, ("Key id", "State", "Algorithm", "Backend", "Signs from", "Unpublished from"), (
        (Link(url(request, "key", [("kid", k.kid)]), k.kid), k.state, k.alg, k.backend, when(k.activates_at),
         when(k.retires_at)) for k in keys))
