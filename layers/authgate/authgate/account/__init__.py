"""The account page, a flow of its own (GET/POST /oauth/account; docs/users.md): a person signs in (the interaction),
changes their password, sets up and removes their factors; and the forgotten-password pages."""
