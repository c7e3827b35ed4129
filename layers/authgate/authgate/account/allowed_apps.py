"""The applications a person allowed, on the account page: the list (client, scopes, when) and "Remove access".

Each client the person approved (stores.consents: the remembered consent) is listed with what it may do and
when it was last approved. Removing access withdraws the consent (authgate.grants.consent): the client asks
again at its next authorization request and its refresh tokens are refused; recorded as consent.revoked with
the person as actor. As every action of the page it needs the page's own sign-in (within 10 minutes of the
password) and its CSRF fields; no second-factor proof: removing access only takes access away, as signing out
does.
"""

from __future__ import annotations

import html
import time
from string import Template

from authgate import clock
from authgate.account.signed_in import Account
from authgate.grants.consent import withdraw
from authgate.http.pages import messages
from authgate.stores.clients import ClientStore
from authgate.stores.consents import DEFAULT_RESOURCE, Consent, ConsentStore

ACTION = "consent_remove"
MAX_CLIENT_ID = 256
GONE = "That application had no access any more: it was removed already."

_ITEM = Template("""<li><strong class="app-name">$name</strong> · $scopes · allowed $when
<form method="post" action="account">
<input type="hidden" name="action" value="consent_remove">
<input type="hidden" name="client_id" value="$client_id">
$csrf
<div class="actions"><button type="submit" class="secondary">Remove access</button></div>
</form></li>""")


def section(account: Account, csrf: str) -> str:
    """The "Apps you've allowed" section: each client with its scopes and when, and a form removing its access."""
    consents = ConsentStore().of_user(account.tenant_id, account.user_id)
    items = "\n".join(_ITEM.substitute(name=html.escape(_name(c.client_id)), scopes=_scopes(c), when=_when(c),
                                       client_id=html.escape(c.client_id), csrf=csrf) for c in consents)
    listed = f'<ul class="apps">\n{items}\n</ul>' if consents else "<p>You have not allowed any application.</p>"
    return f"<h2>Apps you've allowed</h2>\n{listed}"


def act(account: Account, fields: dict[str, str]) -> str:
    """Remove the access of the client the form names: the message for the account page."""
    client_id = fields.get("client_id", "")[:MAX_CLIENT_ID]
    withdrawn = withdraw(account.tenant_id, account.user_id, client_id, clock.seconds(),
                         username=account.username) if client_id else None
    if withdrawn is None:
        return GONE
    return messages.Done(f"{_name(client_id)} no longer has access to your account: it will ask you again.")


def _name(client_id: str) -> str:
    """The client's name, else its id (a client deleted since is listed by its id)."""
    client = ClientStore().get(client_id, any_environment=True)
    return client.name if client is not None and client.name else client_id


def _scopes(consent: Consent) -> str:
    shown = [f"<code>{html.escape(' '.join(scopes))}</code>" + ("" if resource == DEFAULT_RESOURCE else
                                                               f" at {html.escape(resource)}")
             for resource, scopes in consent.scopes.items()]
    return ", ".join(shown) or "no scope"


def _when(consent: Consent) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(consent.granted_at)) if consent.granted_at else "before"
