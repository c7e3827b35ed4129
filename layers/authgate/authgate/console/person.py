"""GET /console/person?tenant=T&username=U: one person: profile, state, the actions one may take (act), sessions,
factors, linked identities, consents.

Allowed by `people.view` in the person's tenant (operators.roles), judged before the person is read. What is shown is
never a secret: a factor is whether it is held (and how many recovery codes are left), a passkey its name and dates,
a session when and how the person signed in and which applications it served.
"""

from __future__ import annotations

import html

from authgate.console.act import WHAT, link, rule
from authgate.console.pages import allow, page, query_value, when
from authgate.console.people import state
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.sessions import SessionStore
from authgate.stores.user_factors import UserFactorStore
from authgate.users.model import User


def get_person(request: Request, signed: SignedIn) -> Response:
    tenant, username = query_value(request, "tenant", 64), query_value(request, "username")
    if not tenant or not username:
        raise ApiError("invalid_request", "Name the person with tenant and username.")
    allow(signed, "people.view", tenant)
    user = UserFactorStore().get(tenant, username)
    if user is None:
        raise ApiError("not_found", f"There is no person {username!r} in tenant {tenant!r}.")
    body = "\n".join((_profile(user), _actions(request, signed, user), _sessions(user), _factors(user),
                      _identities(user), _consents(user)))
    return page(request, signed, f"{username} ({tenant})", body, current="people")


def _actions(request: Request, signed: SignedIn, user: User) -> str:
    """Links to the confirmation of each action the operator's roles allow on this person (none: no section)."""
    offered = [name for name in WHAT if name != ("enable" if not user.disabled else "disable")
               and roles.may(signed.operator.roles, rule(name), user.tenant_id)]
    if not offered:
        return ""
    links = "\n".join(f'<li><a href="{html.escape(link(request, user.tenant_id, user.username, name))}">'
                      f"{html.escape(WHAT[name].label)}</a></li>" for name in offered)
    return f'<section>\n<h2>Actions</h2>\n<ul class="console-actions">\n{links}\n</ul>\n</section>'


def _list(title: str, pairs: list[tuple[str, str]]) -> str:
    items = "\n".join(f"<dt>{html.escape(name)}</dt><dd>{html.escape(value)}</dd>" for name, value in pairs)
    return f"<section>\n<h2>{title}</h2>\n<dl>\n{items}\n</dl>\n</section>"


def _profile(user: User) -> str:
    email = (user.email + (" (verified)" if user.email_verified else " (not verified)")) if user.email else "-"
    return _list("Profile", [("Username", user.username), ("User id", user.user_id or "-"), ("Name", user.name or "-"),
                             ("Email", email), ("State", state(user)), ("Created", when(user.created_at)),
                             ("Updated", when(user.updated_at)), ("Sessions ended before", when(user.sessions_valid_after))])


def _sessions(user: User) -> str:
    e = html.escape
    sessions = SessionStore().standing(user)
    if not sessions:
        return "<section>\n<h2>Sign-in sessions</h2>\n<p>No sign-in session is live.</p>\n</section>"
    rows = "\n".join(
        f"<tr><td>{e(when(s.auth_time))}</td><td>{e(s.acr)} ({e(' '.join(s.amr))})</td>"
        f"<td>{e(when(s.last_active))}</td><td>{e(', '.join(s.clients)) or '-'}</td></tr>" for s in sessions)
    return ('<section>\n<h2>Sign-in sessions</h2>\n<div class="table"><table>\n'
            f"<caption>{len(sessions)} live sign-in session{'s' if len(sessions) != 1 else ''}</caption>\n"
            '<thead><tr><th scope="col">Signed in</th><th scope="col">How</th><th scope="col">Last active</th>'
            f'<th scope="col">Applications</th></tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table></div>\n</section>')


def _factors(user: User) -> str:
    factors = UserFactorStore().factors(user.tenant_id, user.username)
    passkeys = PasskeyStore().of_user(user.tenant_id, user.username)
    code = "not set up" if factors is None or not factors.totp else \
        f"set up ({factors.recovery_codes_left} recovery codes left)"
    pairs = [("One-time code", code + (", an enrolment is pending" if factors and factors.totp_pending else ""))]
    pairs += [(f"Passkey {p.name}", f"created {when(p.created_at)}, last used {when(p.last_used_at)}") for p in passkeys]
    if not passkeys:
        pairs.append(("Passkeys", "none"))
    return _list("Second factors", pairs)


def _consents(user: User) -> str:
    """What the person approved for each client (single sign-on asks only for what is new)."""
    from authgate.stores.consents import DEFAULT_RESOURCE, ConsentStore

    granted = ConsentStore().of_user(user.tenant_id, user.user_id) if user.user_id else []
    pairs = [(consent.client_id, "; ".join(" ".join(scopes) + ("" if resource == DEFAULT_RESOURCE else f" (for {resource})")
                                           for resource, scopes in consent.scopes.items()))
             for consent in granted]
    return _list("Consents", pairs) if pairs else \
        "<section>\n<h2>Consents</h2>\n<p>No application holds a remembered consent.</p>\n</section>"


def _identities(user: User) -> str:
    links = LinkedIdentityStore().of_user(user.user_id)
    pairs = [(link.issuer, f"subject {link.subject}, linked {when(link.linked_at)}"
              + (f" ({link.via})" if link.via else "")) for link in links]
    return _list("Linked identities", pairs) if pairs else \
        "<section>\n<h2>Linked identities</h2>\n<p>No identity at an identity provider is linked.</p>\n</section>"
