"""GET /console/saml-keys, /console/saml-key?fingerprint=F, and /console/saml-keys/add and /console/saml-keys/retire
(GET: the confirmation; POST: the action): the stack's SAML signing keys, what `authgate saml-keys` does.

The list is what `authgate saml-keys list` prints (each key by its certificate's SHA-256 fingerprint, the signing one
first, whether it signs, when it was made and until when its certificate is valid); one key's page what `authgate
saml-keys show` prints, its certificate (PEM) included, never its private half. Adding a key and retiring the signing
one are the command's operations (authgate.administration.saml_sp_keys), with its checks and its words: a refusal is
the 400 page with the sentence the command prints. Each is the command's audit event (key.rotated, on the stack's
signing keys), by the operator naming their roles, a refusal too. Each form is taken once: the same form sent again
(the answer page reloaded) is refused and changes nothing.

The keys belong to no tenant: `keys.view` (owner, admin, auditor) and `keys.change` (owner, admin) are judged for
none, before anything is read. The pages sit under Keys in the navigation.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TypeVar

from authgate import audit
from authgate.administration.saml_sp_keys import Shown
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
    recorded,
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

CURRENT = "keys"
TITLE = "SAML signing keys"
ADD = "Add a key"
RETIRE = "Retire the signing key"
T = TypeVar("T")


def get_list(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.view")
    from authgate.administration.saml_sp_keys import listed

    found = listed()
    actions = [Link(url(request, "saml-keys/add"), ADD)] + (
        [Link(url(request, "saml-keys/retire"), RETIRE)] if found else [])
    body = links(actions) + "\n" if roles.may(signed.operator.roles, "keys.change") else ""
    if found:
        body += table(f"{len(found)} SAML signing key{'s' if len(found) != 1 else ''}, the signing one first",
                      ("Fingerprint (SHA-256)", "Signs", "Created", "Not after"), (
                          (Link(_key_url(request, k), k.fingerprint), "yes" if k.signs else "no", when(k.created_at),
                           when(k.not_after)) for k in found))
    else:
        body += "<p>No SAML signing key: requests go unsigned.</p>"
    body += f'\n<p><a href="{html.escape(url(request, "keys"))}">Back to the signing keys</a></p>'
    return page(request, signed, TITLE, body, current=CURRENT)


def get_key(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.view")
    fingerprint = query_value(request, "fingerprint", 128)
    if not fingerprint:
        raise ApiError("invalid_request", "Name the key with fingerprint.")
    from authgate.administration.saml_sp_keys import found

    key = _refused_as_the_command(lambda: found(fingerprint))
    if key is None:
        raise ApiError("not_found", f"There is no SAML signing key {fingerprint!r}.")
    body = definitions("Key", [
        ("Fingerprint (SHA-256)", key.fingerprint), ("Signs", "yes" if key.signs else "no"),
        ("Created", when(key.created_at)), ("Not after", when(key.not_after))]) + "\n" + \
        section("Certificate", f"<pre>{html.escape(key.certificate)}</pre>") + \
        f'\n<p><a href="{html.escape(url(request, "saml-keys"))}">Back to the SAML signing keys</a></p>'
    return page(request, signed, f"SAML signing key {key.fingerprint}", body, current=CURRENT)


def get_add(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.change")
    return confirmation(
        request, signed, title="Add a SAML signing key?",
        does="A new key (RSA 3072, under a self-signed certificate valid for ten years) is made. When the stack has "
             "none, it signs every AuthnRequest and LogoutRequest from now on; otherwise it is published in the SP "
             "metadata beside the signing key, and signs once that one is retired.",
        target="saml-keys/add", fields=(), label="Add", cancel=_back(request, "Cancel"), current=CURRENT)


def post_add(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.change")
    _once(request)
    from authgate.administration.saml_sp_keys import add, added, common_name
    from authgate.issuer import base_url
    from authgate.settings import get_settings

    key = _acting(signed, "saml-keys.add", lambda: add(common_name(get_settings().issuer or base_url(request))))
    return done(request, signed, title="SAML signing key added", said=added(key),
                back=_back(request, "Back to the SAML signing keys"), current=CURRENT)


def get_retire(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.change")
    return confirmation(
        request, signed, title="Retire the SAML signing key?",
        does="The key that signs requests now is dropped and the next one signs; with no other key, requests go "
             "unsigned. Retire it once every IdP has the next key's certificate (the SP metadata publishes it): an IdP "
             "that still expects the retired one refuses the requests.",
        target="saml-keys/retire", fields=(), label="Retire", cancel=_back(request, "Cancel"), current=CURRENT)


def post_retire(request: Request, signed: SignedIn) -> Response:
    allow(signed, "keys.change")
    _once(request)
    from authgate.administration.saml_sp_keys import retire, retired

    key = _acting(signed, "saml-keys.retire", retire)
    return done(request, signed, title="SAML signing key retired", said=retired(key),
                back=_back(request, "Back to the SAML signing keys"), current=CURRENT)


def _once(request: Request) -> None:
    """The posted form, taken once (console.clients.once): reloading the answer page or sending the form again adds
    or retires nothing more (a second retire would drop the key that just started signing)."""
    from authgate.console.clients import once

    once(form_fields(request, STEP))


def _acting(signed: SignedIn, console_action: str, act: Callable[[], Shown]) -> Shown:
    """`act`, recorded as the command records it (key.rotated on the stack's signing keys), a refusal too."""
    target = audit.Party("key", "signing-keys")
    try:
        key = _refused_as_the_command(act)
    except ApiError:
        recorded(signed, "key.rotated", "", target, console_action, outcome="failure", reason="invalid_input")
        raise
    recorded(signed, "key.rotated", "", target, console_action, fingerprint_sha256=key.fingerprint, signs=key.signs)
    return key


def _refused_as_the_command(act: Callable[[], T]) -> T:
    """`act`'s result; its refusal is the 400 page with the sentence `authgate saml-keys` prints."""
    from authgate.operators.input import InvalidInput

    try:
        return act()
    except InvalidInput as exc:
        raise ApiError("invalid_request", str(exc)) from None


def _key_url(request: Request, key: Shown) -> str:
    return url(request, "saml-key", [("fingerprint", key.fingerprint)])


def _back(request: Request, text: str) -> Link:
    return Link(url(request, "saml-keys"), text)
