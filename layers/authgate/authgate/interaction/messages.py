"""What the interaction says to the person: every sign-in message, and each flow's wording of its refusals.

A refusal never says which part was wrong (the organisation, the account, the password or the code: no oracle
of tenants or accounts, docs/users.md); each flow's page words it for what that page asks (`Words`).
"""

from __future__ import annotations

from typing import NamedTuple

WRONG_CREDENTIALS = ("The username or password is incorrect, or this account is temporarily locked "
                     "after repeated failed attempts. Check them and try again in a moment.")
# A sign-in where the person names the organisation: no hint of which part was wrong (no oracle of
# tenants), but what to type (docs/users.md, "Which organisation").
WRONG_ORGANISATION_OR_CREDENTIALS = (
    "The organisation, username or password is incorrect, or this account is temporarily locked. The "
    "organisation is the short id your administrator gave you (such as acme), not its display name; with a "
    "work email address as the username you can usually leave it empty.")
# The form that also asks for a one-time code: one message whichever of the three was wrong (no oracle).
WRONG_CREDENTIALS_OR_CODE = ("The username, password or code is incorrect, or this account is temporarily locked "
                             "after repeated failed attempts. Check them and try again in a moment.")
WRONG_ORGANISATION_CREDENTIALS_OR_CODE = WRONG_ORGANISATION_OR_CREDENTIALS.replace(
    "username or password", "username, password or code")
MISSING_CREDENTIALS = "Enter your username and password, then choose Approve."
MISSING_DECISION = "Choose Approve or Deny."
STALE_FORM = "The sign-in form has expired or was altered. Start again from the application."
SESSION_ENDED = "You were signed out in the meantime. Sign in again to approve."

# The second factor (interaction.second_factor).
WRONG_CODE = ("The code is incorrect or was used already, or this account is temporarily locked after repeated "
              "failed attempts. Check it and try again in a moment.")
MISSING_CODE = "Enter the code, then choose Continue."
UNMET = ("This request needs a sign-in with a second factor (acr mfa), and this account has none; set one up on "
         "the account page, or ask without an essential acr.")
# OpenID Connect Core 3.1.2.6: why prompt=none cannot be honoured here.
PROMPT_NONE_CODE = "The user must sign in with a second factor, and prompt=none forbids asking them to."
PROMPT_NONE_ENROL = "The user must set up a second factor, and prompt=none forbids asking them to."

# A passkey (interaction.passkey_sign_in).
PASSKEY_REFUSED = ("The passkey could not be used: it is not one of this organisation's, the page expired, or your "
                   "browser's answer did not verify. Try again, or sign in with your password.")


# The organisation field's help (docs/users.md, "Which organisation").
ORGANISATION_HELP = ("The short id your administrator gave you, such as <code>acme</code>. Leave it empty to sign in "
                     "with your work email address as the username, or to your usual organisation.")


class Words(NamedTuple):
    """How a flow's sign-in form is worded: its username's label, the organisation's help (HTML), its refusals."""

    # No username or no password.
    missing: str = MISSING_CREDENTIALS
    # A wrong organisation, username or password (or a locked account).
    wrong: str = WRONG_CREDENTIALS
    # The same, with a code typed beside the password.
    wrong_with_code: str = WRONG_CREDENTIALS_OR_CODE
    # The person holds no second factor, and the form asks one (the approval page).
    no_factor: str = ""
    # A second-factor step that expired, was used already or is of another session.
    step_ended: str = "The second-factor step expired or was used already. Sign in again."
    username_label: str = "Username"
    organisation_help: str = ORGANISATION_HELP


# The sign-in page of the authorization endpoint and the device verification page.
SIGN_IN = Words()
# The same where the person names their organisation (a self-registered client).
SIGN_IN_ORGANISATION = Words(wrong=WRONG_ORGANISATION_OR_CREDENTIALS,
                             wrong_with_code=WRONG_ORGANISATION_CREDENTIALS_OR_CODE)
# The device verification page: its step ends on the decision page.
DEVICE = Words(step_ended="The second-factor step expired or was used already. Choose Approve again.")
# The account page's own sign-in (docs/users.md, "The account page").
ACCOUNT = Words(missing="Enter your username and password.", username_label="Username or email",
                organisation_help=("The short id your administrator gave you, such as <code>acme</code>; leave it "
                                   "empty\nwith a work email address, or for your usual organisation."),
                wrong=("The organisation, username or password is incorrect, or this account is temporarily locked. "
                       "The organisation is the short id your administrator gave you (such as acme); with a work "
                       "email address you can usually leave it empty."))
# The CIBA approval page: a password and a code in one form, at mfa (docs/ciba.md).
APPROVAL = Words(wrong="The password or the code is wrong.", wrong_with_code="The password or the code is wrong.",
                 missing="The password or the code is wrong.",
                 no_factor=("Approving needs a second factor, and your account has none yet. Add a one-time code app "
                            "on your account page, then open this link again."))

# An upstream identity provider (interaction.upstream_start, upstream_answer). One answer whether no account is
# there for the person and the IdP may not create one, or their account is disabled (no oracle of which).
UPSTREAM_NOT_ALLOWED = ("You cannot sign in here with that account. Sign in another way, or ask your organisation's "
                        "administrator for access.")
# The IdP's record changed or went away between the button and its answer, or its answer came too late.
UPSTREAM_UNAVAILABLE = "That sign-in option is not available any more. Sign in another way, or start again."
UPSTREAM_ENDED = "The sign-in took too long or was already used. Start it again."
# The link page: a password or passkey that is not the account's (one answer whichever part was wrong).
LINK_WRONG = ("That is not the account that uses this email address, or the username or password is incorrect, or "
              "the account is temporarily locked. Check them and try again in a moment.")
LINK_PASSKEY_REFUSED = ("The passkey could not be used: it is not one of this account's, the page expired, or your "
                        "browser's answer did not verify. Try again, or use the account's password.")
# Step-up at the identity provider (its record's step_up "upstream") that did not come back with a second factor.
UNMET_UPSTREAM = ("This request needs a sign-in with a second factor (acr mfa), and your identity provider did not "
                  "confirm one.")
