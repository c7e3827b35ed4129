"""What every console page shares: the shell (who is signed in, the navigation, sign-out), links, the rule's refusal.

A page is the project's page (http.pages: the stylesheet, the icon, strict headers: a CSP with no script and no
inline style, no framing, no Referer, never cached), with a skip link, a navigation landmark that marks the current
page, and the sign-out form (CSRF as every form of the flows: interaction.pages). Links are absolute under the
issuer, as the pages live at several depths behind a stage path. `allow` is operators.roles' rule at the edge of every
page: an action the operator's roles do not allow is a 403 page before anything of it is read, and an audit event.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Iterable, Sequence
from string import Template
from typing import Any, NamedTuple
from urllib.parse import urlencode

from authgate import audit
from authgate.audit.actions import Action as AuditAction
from authgate.audit.event import Outcome
from authgate.console.sections import SECTIONS
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.pages import head
from authgate.http.pages.headers import page_headers
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import csrf_fields
from authgate.issuer import base_url
from authgate.operators import roles

# The step every console form names in its CSRF nonce (interaction.pages).
STEP = "console"

_PAGE = Template("""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>$title · authgate console</title>
$head_links
</head>
<body class="console">
<a class="skip" href="#content">Skip to the content</a>
<header class="console-bar">
<p class="brand"><a href="$home">authgate console</a></p>
<nav aria-label="Console">
<ul>
$nav
</ul>
</nav>
<form class="who" method="post" action="$sign_out">
$csrf
<p>Signed in as <strong>$username</strong> <span class="fine">($roles)</span></p>
<button type="submit" class="secondary">Sign out</button>
</form>
</header>
<main id="content" class="console-page">
<h1>$title</h1>
$body
</main>
</body>
</html>
""")
_CURRENT = ' aria-current="page"'


def url(request: Request, page: str = "", query: Sequence[tuple[str, str]] = ()) -> str:
    """The absolute URL of a console page (`page` "" is the home page) with `query`."""
    return f"{base_url(request)}/console{'/' + page if page else ''}" + (f"?{urlencode(query)}" if query else "")


def operator_party(signed: SignedIn) -> audit.Party:
    """The operator as the audit trail names them: their username, and as principal the console and their user id."""
    return audit.operator(signed.operator.username, f"console:{signed.operator.user.user_id}")


def allow(signed: SignedIn, action: str, tenant: str | None = None) -> None:
    """Nothing, when the operator's roles allow `action` on `tenant`; else the 403 page (operator_forbidden), and
    the refusal in the audit trail (console.refused)."""
    if not roles.may(signed.operator.roles, action, tenant):
        audit.record("console.refused", tenant or "", actor=operator_party(signed),
                     target=audit.Party("tenant", tenant or "-"), outcome="failure", reason="role",
                     details={"console_action": action, "roles": signed.operator.described()})
        where = f" in tenant {tenant}" if tenant else ""
        raise ApiError("operator_forbidden", f"Your roles ({signed.operator.described()}) do not allow this{where}.",
                       internal=f"operator={signed.operator.username} action={action} tenant={tenant or '-'}")


def allow_somewhere(signed: SignedIn, action: str) -> None:
    """Nothing when the operator's roles allow `action` in some tenant (support's, say); else the 403 page, before
    anything is read (a page that judges the tenant later, once it is known: console.clients.judged)."""
    if not roles.reach(signed.operator.roles, action).anywhere:
        allow(signed, action)


def chosen_tenant(request: Request, signed: SignedIn, action: str) -> tuple[list[str], str]:
    """The tenants the operator's roles reach for `action` (every tenant for a role held everywhere) and the one the
    query's `tenant` names (the first of them when it names none): the 403 page for a tenant outside them, before
    anything of it is read; 404 for a tenant that is not there."""
    from authgate.stores.tenants import TenantStore

    asked = query_value(request, "tenant", 64)
    if asked:
        allow(signed, action, asked)
    else:
        allow_somewhere(signed, action)
    reach = roles.reach(signed.operator.roles, action)
    tenants = sorted(t.tenant_id for t in TenantStore().list()) if reach.everywhere else sorted(reach.tenants)
    tenant = asked or (tenants[0] if tenants else "")
    if tenant not in tenants:
        raise ApiError("not_found", f"There is no tenant {tenant!r}.")
    return tenants, tenant


def tenant_picker(request: Request, target: str, tenants: Sequence[str], tenant: str, button: str,
                  more: str = "", role: str = "") -> str:
    """The form atop a page of one tenant's things (GET to the console page `target`): the tenants to pick from,
    `tenant` picked, `more` fields (HTML, escaped by the caller), and its button."""
    e = html.escape
    options = "\n".join(f'<option value="{e(t)}"{" selected" if t == tenant else ""}>{e(t)}</option>' for t in tenants)
    return (f'<form class="search" method="get" action="{e(url(request, target))}"'
            + (f' role="{role}"' if role else "") + ">\n"
            f'<label for="tenant">Tenant</label>\n<select id="tenant" name="tenant">\n{options}\n</select>\n{more}'
            f'<div class="actions"><button type="submit">{e(button)}</button></div>\n</form>')


def page(request: Request, signed: SignedIn, title: str, body: str, current: str = "",
         csrf: tuple[str, str | None] | None = None) -> Response:
    """A console page of `body` (HTML, escaped by the caller) titled `title`; `current` names its navigation item.
    `csrf`: the hidden fields (and binding cookie) the body's own form carries, when it has one (csrf_fields), which
    the sign-out form then carries too: one binding per browser."""
    csrf_html, binding = csrf or csrf_fields(request, STEP)
    nav = "\n".join(
        f'<li><a href="{html.escape(url(request, s.page))}"{_CURRENT if s.page == current else ""}>{s.label}</a></li>'
        for s in SECTIONS if roles.reach(signed.operator.roles, s.action).anywhere)
    document = _PAGE.substitute(
        title=html.escape(title), head_links=head.links(root=base_url(request)), home=html.escape(url(request)), nav=nav,
        sign_out=html.escape(url(request, "sign-out")), csrf=csrf_html, username=html.escape(signed.operator.username),
        roles=html.escape(signed.operator.described()), body=body)
    response = Response(200, document, page_headers(form_action=["'self'"]))
    if binding:
        response.multi_headers["Set-Cookie"] = [binding]
    return response


def query_value(request: Request, name: str, limit: int = 256) -> str:
    """A query parameter given at most once and at most `limit` characters ("" when absent); 400 otherwise."""
    values = request.query.get(name, [])
    if len(values) > 1:
        raise ApiError("invalid_request", f"The {name} parameter is repeated.")
    value = values[0] if values else ""
    if len(value) > limit or controlled(value):
        raise ApiError("invalid_request", f"The {name} parameter is too long or holds control characters.")
    return value


def controlled(value: str) -> bool:
    """Whether `value` holds a control character (Unicode's Cc: C0, DEL and C1), which no field of the console takes."""
    return any(unicodedata.category(c) == "Cc" for c in value)


def when(seconds: int) -> str:
    """A time as people read it in the console: ISO 8601 in UTC, "never" for none."""
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds)) if seconds else "never"


class Link(NamedTuple):
    """A cell or an item that links (`href` absolute, `text` as people read it): escaped where it is written."""

    href: str
    text: str


def _cell(value: str | Link) -> str:
    if isinstance(value, Link):
        return f'<a href="{html.escape(value.href)}">{html.escape(value.text)}</a>'
    return html.escape(value)


def section(title: str, inner: str) -> str:
    """A section of a page: its heading and `inner` (HTML, escaped by the caller)."""
    return f"<section>\n<h2>{html.escape(title)}</h2>\n{inner}\n</section>"


def definitions(title: str, pairs: Iterable[tuple[str, str | Link]], empty: str = "") -> str:
    """A section of name/value pairs (a description list); `empty` said instead when there is none ("" : the
    list, empty)."""
    listed = list(pairs)
    if not listed and empty:
        return section(title, f"<p>{html.escape(empty)}</p>")
    items = "\n".join(f"<dt>{html.escape(name)}</dt><dd>{_cell(value)}</dd>" for name, value in listed)
    return section(title, f"<dl>\n{items}\n</dl>")


def table(caption: str, headings: Sequence[str], rows: Iterable[Sequence[str | Link]]) -> str:
    """A table (it scrolls on its own at phone width), its first cell the row's heading; cells are text or Link."""
    body = "\n".join(f'<tr><th scope="row">{_cell(row[0])}</th>' + "".join(f"<td>{_cell(c)}</td>" for c in row[1:])
                     + "</tr>" for row in rows)
    heads = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in headings)
    return (f'<div class="table"><table>\n<caption>{html.escape(caption)}</caption>\n'
            f"<thead><tr>{heads}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table></div>")


def links(items: Iterable[Link], css: str = "console-actions") -> str:
    """A list of links (the actions offered on a page)."""
    return f'<ul class="{css}">\n' + "\n".join(f"<li>{_cell(item)}</li>" for item in items) + "\n</ul>"


def form_page(request: Request, signed: SignedIn, *, title: str, target: str, inner: str, label: str, cancel: Link,
              current: str, hidden: Sequence[tuple[str, str]] = (), css: str = "", before: str = "") -> Response:
    """A page of one form (CSRF, as every console form) that posts `hidden` and the fields `inner` (HTML, escaped by
    the caller) to the console page `target` with the button `label`, or goes back to `cancel`; `before` (HTML) is
    said above it."""
    e = html.escape
    csrf = csrf_fields(request, STEP)
    kept = "".join(f'<input type="hidden" name="{e(name)}" value="{e(value)}">\n' for name, value in hidden)
    opening = f'<form class="{e(css)}" method="post"' if css else '<form method="post"'
    body = (f'{before}{opening} action="{e(url(request, target))}">\n{csrf[0]}\n{kept}{inner}'
            f'<div class="actions"><button type="submit">{e(label)}</button>\n{_cell(cancel)}</div>\n</form>')
    return page(request, signed, title, body, current=current, csrf=csrf)


def confirmation(request: Request, signed: SignedIn, *, title: str, does: str, target: str,
                 fields: Sequence[tuple[str, str]], label: str, cancel: Link, current: str) -> Response:
    """The page that asks before an action: what it does (`does`, text), and a form that posts `fields` to the
    console page `target` with the button `label`, or goes back to `cancel`."""
    return form_page(request, signed, title=title, target=target, inner="", label=label, cancel=cancel,
                     current=current, hidden=fields, before=f"<p>{html.escape(does)}</p>\n")


def secret_once(name: str, secret: str, note: str) -> str:
    """A secret on the answer page of the form that made it, shown this once (the page is never cached; the secret is
    never stored in clear, logged or in an event): its name, the value, what to do with it."""
    return section(name, f'<p><code class="secret">{html.escape(secret)}</code></p>\n<p>{html.escape(note)}</p>') + "\n"


def done(request: Request, signed: SignedIn, *, title: str, said: str, back: Link, current: str,
         more: str = "") -> Response:
    """The page after an action: what it did (a status message, the words the command prints), `more` (HTML,
    escaped by the caller: a secret shown once, say) and the way back."""
    body = f'<p role="status">Done: {html.escape(said)}.</p>\n{more}<p>{_cell(back)}</p>'
    return page(request, signed, title, body, current=current)


def recorded(signed: SignedIn, action: AuditAction, tenant: str, target: audit.Party, console_action: str, *,
             outcome: Outcome = "success", reason: str | None = None, **details: Any) -> None:
    """An operator's action in the audit trail (the action the command records too), by the operator, naming
    their roles and that the console took it."""
    audit.record(action, tenant, actor=operator_party(signed), target=target, outcome=outcome,
                 reason=reason, details={"via": "console", "console_action": console_action,
                                         "roles": signed.operator.described(), **details})
