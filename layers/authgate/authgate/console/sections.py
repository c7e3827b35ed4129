"""The console's sections: the navigation atop every page and the list on the home page, in one table.

A section shows for an operator whose roles allow its action somewhere (operators.roles.reach); the page itself
judges the action again, for the tenant it is asked for (console.pages.allow). A new page of the console that
the navigation should offer is one line here.
"""

from __future__ import annotations

from typing import NamedTuple


class Section(NamedTuple):
    page: str  # the path under /console ("" is the home page)
    label: str  # the navigation's link
    action: str  # the operators.roles action that opens it
    what: str  # what it is for, on the home page ("": not listed there)


SECTIONS: tuple[Section, ...] = (
    Section("", "Home", "console.home", ""),
    Section("people", "People", "people.find", "find a person by username, email or id, and see their account"),
    Section("clients", "Clients", "clients.view", "a tenant's clients and each one's registration; register, change, "
                                                  "rotate a secret, delete"),
    Section("resources", "Resources", "resources.view", "the APIs tokens are issued for: register, change, delete"),
    Section("tenants", "Tenants", "tenants.view", "every tenant and its settings: currencies, second factor, "
            "strong authentication for charges, which applications its people may allow"),
    Section("idps", "Identity providers", "idps.view", "the identity providers a tenant's people sign in with"),
    Section("keys", "Keys", "keys.view", "the signing keys, their states and public keys; rotate them; the SAML "
                                         "request-signing keys"),
    Section("events", "Events", "events.view", "what happened, and who did it: the audit trail's events"),
    Section("operators", "Operators", "operators.view", "the console's operators and their roles"),
)
